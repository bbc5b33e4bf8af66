import type {
  ErrorCode,
  FieldError,
  MethodName,
  NotificationOf,
  ParamsOf,
  ResultOf,
  TopicName,
} from '../../../protocol/contract.js'

/** Which transport a call arrived on; the Host may answer differently (e.g. `app/info`). */
export interface CallContext {
  readonly transport: 'ipc' | 'websocket' | 'in-process'
}

/** One handler per contract method; params arrive already parsed by the method's schema. */
export type HostHandlers = {
  [M in MethodName]: (params: ParamsOf<M>, ctx: CallContext) => Promise<ResultOf<M>> | ResultOf<M>
}

export type NotificationSink = <T extends TopicName>(topic: T, payload: NotificationOf<T>) => void

/**
 * The Host implements the bridge contract on top of the core. Transports (Electron IPC, the
 * loopback WebSocket) never call handlers directly: they go through `dispatchCall`, which
 * validates params and results and turns every failure into a typed error.
 */
export interface Host {
  readonly handlers: HostHandlers
  /** A random id per boot, sent as `bridge/ready`, so clients can tell a restart from a reconnect. */
  readonly bootId: string
  /** Subscribes a transport to every notification; returns a disposer. */
  onNotification(sink: NotificationSink): () => void
  /** Releases everything the Host holds (plugins, database). Idempotent. */
  close(): Promise<void>
}

/**
 * A failure a handler wants the caller to see with a specific code. `fields` (for
 * INVALID_SETTINGS and INVALID_PARAMS) names each failing input by its dotted path, so the UI
 * can show the message next to the input; `dispatchCall` passes them through unchanged.
 */
export class HostError extends Error {
  readonly fields?: readonly FieldError[]

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { readonly fields?: readonly FieldError[]; readonly cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'HostError'
    if (options.fields !== undefined && options.fields.length > 0) this.fields = options.fields
  }
}
