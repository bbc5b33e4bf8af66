/**
 * The IPC channel names of the Electron transport, derived from the contract. Pure (no `electron`
 * import): main binds one handler per channel and the preload invokes them, both from here, so the
 * two cannot drift apart.
 */
import { IPC_CALL_CHANNEL, IPC_NOTIFY_CHANNEL } from './contract.js'
import type { MethodName } from './contract.js'

/** One channel per contract method, e.g. `bridle:call:session/list`. */
export function callChannel(method: MethodName): string {
  return `${IPC_CALL_CHANNEL}:${method}`
}

/** Notifications travel main → renderer on one channel as `{ topic, payload }`. */
export const NOTIFY_CHANNEL = IPC_NOTIFY_CHANNEL
