/**
 * The one contract of the bridge between the renderer and the main process. Everything that
 * crosses it is named here with a zod schema, and both sides validate: the main side parses every
 * call's params before the Host sees them, the renderer parses every result and notification.
 *
 * Wire names are `resource/verb`. Results travel as data, `{ ok: true, value }` or
 * `{ ok: false, error: { code, message } }`, because Electron's `invoke` keeps only an error's
 * message. This module is pure zod: it is imported by main, preload and renderer alike.
 */
import { z } from 'zod'

export const ErrorCode = z.enum([
  /** The method name is not in the contract. */
  'UNKNOWN_METHOD',
  /** The params failed the method's schema; the Host was not called. */
  'INVALID_PARAMS',
  /** The caller is not our window or lacks the bridge token. */
  'FORBIDDEN',
  /** The payload is larger than the bridge accepts. */
  'PAYLOAD_TOO_LARGE',
  /** The Host returned a value that failed the method's result schema (a bug in main). */
  'INVALID_RESULT',
  /** The bridge connection is closed or not yet open. */
  'DISCONNECTED',
  /** Anything else the Host threw; the message says what. */
  'INTERNAL',
])
export type ErrorCode = z.infer<typeof ErrorCode>

export const BridgeError = z.object({ code: ErrorCode, message: z.string() })
export type BridgeError = z.infer<typeof BridgeError>

export type Result<T> = { ok: true; value: T } | { ok: false; error: BridgeError }

export const resultSchema = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), value }),
    z.object({ ok: z.literal(false), error: BridgeError }),
  ])

export const AppInfoResult = z.object({
  name: z.literal('Bridle'),
  version: z.string().min(1),
  /** The user data folder (BRIDLE_HOME) where the database and spilled outputs live. */
  dataDir: z.string().min(1),
  /** The event log's SQLite file inside the data folder. */
  databasePath: z.string().min(1),
  platform: z.string().min(1),
  arch: z.string().min(1),
  /** Runtime versions of the main process, e.g. `{ node: '24.11.0', electron: '45.5.0' }`. */
  versions: z.record(z.string(), z.string()),
  /** How the caller is connected: Electron IPC, the loopback WebSocket, or in-process (the CLI). */
  transport: z.enum(['ipc', 'websocket', 'in-process']),
})
export type AppInfoResult = z.infer<typeof AppInfoResult>

interface MethodSpec {
  readonly params: z.ZodType
  readonly result: z.ZodType
  readonly description: string
}

export const methods = {
  'app/info': {
    description: 'Version, data folder and platform of the running Bridle.',
    params: z.object({}).strict(),
    result: AppInfoResult,
  },
} as const satisfies Record<string, MethodSpec>

export type Methods = typeof methods
export type MethodName = keyof Methods
export type ParamsOf<M extends MethodName> = z.input<Methods[M]['params']>
export type ResultOf<M extends MethodName> = z.output<Methods[M]['result']>

export const notifications = {
  /** Sent once when a bridge connection is ready; lets a client tell a reconnect from a restart. */
  'bridge/ready': z.object({ bootId: z.string().min(1) }),
} as const satisfies Record<string, z.ZodType>

export type Notifications = typeof notifications
export type TopicName = keyof Notifications
export type NotificationOf<T extends TopicName> = z.output<Notifications[T]>

export const isMethodName = (name: string): name is MethodName => Object.hasOwn(methods, name)
export const isTopicName = (name: string): name is TopicName => Object.hasOwn(notifications, name)

/** Calls larger than this are refused before parsing, on both transports. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024

/** The IPC channels of the Electron transport: one for calls, one for notifications. */
export const IPC_CALL_CHANNEL = 'bridle:call'
export const IPC_NOTIFY_CHANNEL = 'bridle:notify'

/** What the preload exposes as `window.bridle`, and what the WebSocket client implements too. */
export interface BridleApi {
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<Result<ResultOf<M>>>
  subscribe<T extends TopicName>(
    topic: T,
    listener: (payload: NotificationOf<T>) => void,
  ): () => void
}

/** Messages of the WebSocket transport (JSON text frames). */
export const WireRequest = z.object({
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
})
export type WireRequest = z.infer<typeof WireRequest>

export const WireMessage = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('result'),
    id: z.number().int().nonnegative(),
    result: z.unknown(),
  }),
  z.object({ kind: z.literal('notify'), topic: z.string(), payload: z.unknown() }),
])
export type WireMessage = z.infer<typeof WireMessage>
