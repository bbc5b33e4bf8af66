import type {
  Disposer,
  EmitNames,
  EventMap,
  FaultReporter,
  FireOptions,
  ListenerOf,
  ListenOptions,
  Next,
  SerialNames,
  Serial,
  Waterfall,
  WaterfallNames,
  Emit,
} from './types.js'

/** A unit of extension: `setup` registers things through the context and nothing else. */
export interface Plugin<E extends EventMap, S extends object> {
  readonly name: string
  setup(ctx: PluginContext<E, S>): void | Promise<void>
}

/**
 * What a plugin sees: its own name, the services, and ways to register. Every registration
 * returns a disposer and is also remembered, so that `kernel.unload(plugin)` undoes all of them
 * in reverse order. A plugin does not get the kernel itself: it cannot fire events or unload others.
 */
export interface PluginContext<E extends EventMap, S extends object> {
  readonly plugin: string
  /** A service another plugin (or the host) provides; throws a clear error when nobody does. */
  service<K extends keyof S & string>(name: K): S[K]
  on<K extends keyof E & string>(
    name: K,
    listener: ListenerOf<E[K]>,
    opts?: ListenOptions,
  ): Disposer
  provide<K extends keyof S & string>(name: K, service: S[K]): Disposer
  /** Adopts a disposer from elsewhere (a tool registry, a timer) so unloading runs it. */
  track(disposer: Disposer): Disposer
}

interface Entry {
  readonly plugin: string
  readonly listener: (...args: never[]) => unknown
  readonly scope: string | undefined
  readonly order: number
  readonly serial: number
}

interface Loaded {
  readonly disposers: Disposer[]
  isAlive: boolean
}

/** Thrown when a waterfall or serial listener fails; names the plugin so the fault is findable. */
export class PluginError extends Error {
  constructor(
    readonly plugin: string,
    readonly event: string,
    override readonly cause: unknown,
  ) {
    super(`plugin "${plugin}" failed in "${event}": ${describe(cause)}`, { cause })
    this.name = 'PluginError'
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

const once = (fn: () => void): Disposer => {
  let isDone = false
  return () => {
    if (isDone) return
    isDone = true
    fn()
  }
}

/**
 * The plugin kernel: services by name, typed events in three modes, scoped listeners, and
 * disposers for everything. The kernel itself has no domain knowledge.
 */
export class Kernel<E extends EventMap, S extends object = object> {
  private readonly listeners = new Map<string, Entry[]>()
  private readonly services = new Map<string, { plugin: string; value: unknown }>()
  private readonly plugins = new Map<string, Loaded>()
  private readonly loadOrder: string[] = []
  private registrations = 0

  constructor(private readonly report: FaultReporter = defaultReporter) {}

  /** Runs a plugin's setup. If setup throws, whatever it registered is undone before rethrowing. */
  async load(plugin: Plugin<E, S>): Promise<void> {
    if (this.plugins.has(plugin.name)) throw new Error(`plugin "${plugin.name}" is already loaded`)
    const loaded: Loaded = { disposers: [], isAlive: true }
    this.plugins.set(plugin.name, loaded)
    this.loadOrder.push(plugin.name)
    try {
      await plugin.setup(this.contextFor(plugin.name, loaded))
    } catch (error) {
      this.unload(plugin.name)
      throw new PluginError(plugin.name, 'setup', error)
    }
  }

  /** Undoes every registration of the plugin, newest first. A failing disposer is reported. */
  unload(name: string): void {
    const loaded = this.plugins.get(name)
    if (!loaded) return
    loaded.isAlive = false
    this.plugins.delete(name)
    this.loadOrder.splice(this.loadOrder.indexOf(name), 1)
    for (const dispose of loaded.disposers.splice(0).reverse()) {
      try {
        dispose()
      } catch (error) {
        this.report({ plugin: name, phase: 'dispose', error })
      }
    }
  }

  /** Unloads every plugin, the last loaded first. */
  unloadAll(): void {
    for (const name of [...this.loadOrder].reverse()) this.unload(name)
  }

  service<K extends keyof S & string>(name: K): S[K] {
    const entry = this.services.get(name)
    if (!entry) throw new Error(`no service "${name}" is provided (is its plugin loaded?)`)
    return entry.value as S[K]
  }

  /**
   * Notifies listeners in order. A listener that throws (or returns a rejected promise) is
   * reported and the others still run; emit itself never throws because of a listener.
   */
  emit<K extends EmitNames<E>>(
    name: K,
    payload: E[K] extends Emit<infer P> ? P : never,
    opts: FireOptions = {},
  ): void {
    for (const entry of this.snapshot(name, opts.scope)) {
      try {
        const result = (entry.listener as (p: unknown) => unknown)(payload)
        if (result instanceof Promise) {
          result.catch((error: unknown) => {
            this.report({ plugin: entry.plugin, event: name, phase: 'listener', error })
          })
        }
      } catch (error) {
        this.report({ plugin: entry.plugin, event: name, phase: 'listener', error })
      }
    }
  }

  /**
   * Runs the listeners as a middleware chain ending in `last`. Each listener may pass a changed
   * input to `next`, or return its own output without calling `next` (short-circuit). Calling
   * `next` twice is an error. A listener's throw rejects the whole call as a PluginError; an error
   * of `last` reaches the caller unchanged, even when it propagates up through listeners.
   */
  async waterfall<K extends WaterfallNames<E>>(
    name: K,
    input: E[K] extends Waterfall<infer I, unknown> ? I : never,
    last: E[K] extends Waterfall<infer I, infer O> ? (input: I) => Promise<O> | O : never,
    opts: FireOptions = {},
  ): Promise<E[K] extends Waterfall<unknown, infer O> ? O : never> {
    type I = unknown
    const chain = this.snapshot(name, opts.scope)
    const run = async (index: number, value: I): Promise<unknown> => {
      const entry = chain[index]
      if (!entry) return (last as (input: I) => unknown)(value)
      let isNextCalled = false
      let downstream: { readonly error: unknown } | undefined
      const next: Next<I, unknown> = (nextInput) => {
        if (isNextCalled) {
          return Promise.reject(
            new Error(`plugin "${entry.plugin}" called next() twice in "${name}"`),
          )
        }
        isNextCalled = true
        return run(index + 1, nextInput).catch((error: unknown) => {
          downstream = { error }
          throw error
        })
      }
      try {
        return await (entry.listener as (i: I, n: Next<I, unknown>) => unknown)(value, next)
      } catch (error) {
        // A failure that only passed through this listener's next() (a later listener, or `last`
        // itself) is not this plugin's fault: rethrow it as it is.
        if (error instanceof PluginError || (downstream && downstream.error === error)) throw error
        throw new PluginError(entry.plugin, name, error)
      }
    }
    return (await run(0, input)) as E[K] extends Waterfall<unknown, infer O> ? O : never
  }

  /** Awaits each listener in turn and returns their results in order; a throw stops the run. */
  async serial<K extends SerialNames<E>>(
    name: K,
    payload: E[K] extends Serial<infer P, unknown> ? P : never,
    opts: FireOptions = {},
  ): Promise<(E[K] extends Serial<unknown, infer R> ? R : never)[]> {
    const results: unknown[] = []
    for (const entry of this.snapshot(name, opts.scope)) {
      try {
        results.push(await (entry.listener as (p: unknown) => unknown)(payload))
      } catch (error) {
        throw new PluginError(entry.plugin, name, error)
      }
    }
    return results as (E[K] extends Serial<unknown, infer R> ? R : never)[]
  }

  private snapshot(name: string, scope: string | undefined): Entry[] {
    const all = this.listeners.get(name)
    if (!all) return []
    return all.filter((entry) => entry.scope === undefined || entry.scope === scope)
  }

  private contextFor(plugin: string, loaded: Loaded): PluginContext<E, S> {
    const remember = (disposer: Disposer): Disposer => {
      if (!loaded.isAlive) {
        disposer()
        throw new Error(`plugin "${plugin}" is unloaded; it cannot register anything`)
      }
      const wrapped = once(() => {
        const at = loaded.disposers.indexOf(wrapped)
        if (at >= 0) loaded.disposers.splice(at, 1)
        disposer()
      })
      loaded.disposers.push(wrapped)
      return wrapped
    }
    return {
      plugin,
      service: (name) => this.service(name),
      on: (name, listener, opts = {}) => remember(this.addListener(plugin, name, listener, opts)),
      provide: (name, service) => remember(this.addService(plugin, name, service)),
      track: (disposer) => remember(disposer),
    }
  }

  private addListener(
    plugin: string,
    name: string,
    listener: Entry['listener'],
    opts: ListenOptions,
  ): Disposer {
    const entry: Entry = {
      plugin,
      listener,
      scope: opts.scope,
      order: opts.order ?? 0,
      serial: this.registrations++,
    }
    const list = [...(this.listeners.get(name) ?? []), entry]
    list.sort((a, b) => a.order - b.order || a.serial - b.serial)
    this.listeners.set(name, list)
    return () => {
      const rest = (this.listeners.get(name) ?? []).filter((e) => e !== entry)
      if (rest.length > 0) this.listeners.set(name, rest)
      else this.listeners.delete(name)
    }
  }

  private addService(plugin: string, name: string, value: unknown): Disposer {
    const existing = this.services.get(name)
    if (existing) {
      throw new Error(
        `service "${name}" is already provided by plugin "${existing.plugin}" (plugin "${plugin}" tried again)`,
      )
    }
    const entry = { plugin, value }
    this.services.set(name, entry)
    return () => {
      if (this.services.get(name) === entry) this.services.delete(name)
    }
  }
}

function defaultReporter(fault: { plugin: string; event?: string; phase: string; error: unknown }) {
  console.error(
    `[bridle] plugin "${fault.plugin}" failed in ${fault.phase}${fault.event ? ` of "${fault.event}"` : ''}:`,
    fault.error,
  )
}
