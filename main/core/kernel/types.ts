/**
 * The typed vocabulary of the kernel. An event map names every event and fixes its mode and
 * payload, so a listener for `'log/appended'` receives exactly that event's payload and an
 * `emit` of a waterfall hook does not type-check.
 */

/** Undoes one registration. Calling it twice is harmless. */
export type Disposer = () => void

/** Fire-and-forget notification: listeners run in order, a throwing one is isolated. */
export interface Emit<P> {
  readonly mode: 'emit'
  readonly payload: P
}

/** Ordered middleware: each listener calls `next(input)` or returns a result of its own. */
export interface Waterfall<I, O> {
  readonly mode: 'waterfall'
  readonly input: I
  readonly output: O
}

/** Listeners run one after another and are awaited; their results are returned in order. */
export interface Serial<P, R = void> {
  readonly mode: 'serial'
  readonly payload: P
  readonly result: R
}

export type EventSpec = Emit<unknown> | Waterfall<unknown, unknown> | Serial<unknown, unknown>

/** A map from event name to its spec, e.g. `{ 'log/appended': Emit<{ seq: number }> }`. */
export type EventMap = Record<string, EventSpec>

export type EmitNames<E extends EventMap> = {
  [K in keyof E & string]: E[K] extends Emit<unknown> ? K : never
}[keyof E & string]
export type WaterfallNames<E extends EventMap> = {
  [K in keyof E & string]: E[K] extends Waterfall<unknown, unknown> ? K : never
}[keyof E & string]
export type SerialNames<E extends EventMap> = {
  [K in keyof E & string]: E[K] extends Serial<unknown, unknown> ? K : never
}[keyof E & string]

export type Awaitable<T> = T | Promise<T>

export type Next<I, O> = (input: I) => Promise<O>

/** The listener type an event's mode calls for. */
export type ListenerOf<S extends EventSpec> =
  S extends Emit<infer P>
    ? (payload: P) => unknown
    : S extends Waterfall<infer I, infer O>
      ? (input: I, next: Next<I, O>) => Awaitable<O>
      : S extends Serial<infer P, infer R>
        ? (payload: P) => Awaitable<R>
        : never

export interface ListenOptions {
  /**
   * Only events fired with this exact scope reach the listener (a session or agent id). Without a
   * scope the listener sees every event of its name, scoped or not.
   */
  readonly scope?: string
  /** Lower runs first; equal orders run in registration order. Default 0. */
  readonly order?: number
}

export interface FireOptions {
  /** The session or agent this event belongs to. */
  readonly scope?: string
}

/** Where the kernel reports failures it isolates (a throwing emit listener, a failing disposer). */
export type FaultReporter = (fault: KernelFault) => void

export interface KernelFault {
  readonly plugin: string
  readonly event?: string
  readonly phase: 'listener' | 'dispose' | 'setup'
  readonly error: unknown
}
