export * from '../../../protocol/events.js'
export { LogError } from './errors.js'
export type { LogErrorCode } from './errors.js'
export { Session } from './session.js'
export type {
  CreateSessionOptions,
  OpenSessionOptions,
  SessionListener,
  SessionOptions,
} from './session.js'
export { forkSession } from './fork.js'
export type { ForkOptions } from './fork.js'
export { MessageCache, messageOf, SUMMARY_PREFIX, systemMessageOf } from './messages.js'
export type { Message } from './messages.js'
export type { SurfaceNode } from './surface.js'
export { deepFreeze } from './freeze.js'
export { summarizeEvent } from './summary.js'
export { deriveMessagesAt } from './derive.js'
