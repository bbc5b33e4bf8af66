/**
 * The engine side of code mode: runs a model's program in QuickJS compiled to WebAssembly, a
 * separate JavaScript engine with its own heap and no Node, file system, network or timers of its
 * own. Only strings cross the boundary (tool arguments and results as JSON text, console lines as
 * text), so nothing the program is given leads back to the host through a constructor or a
 * prototype. This module runs inside the code worker (`worker.ts`), never on the host's thread.
 *
 * The engine's own limits: a deadline checked by its interrupt handler (a busy loop stops, also
 * one after an `await`), a heap limit, and a cap on tool calls. The host adds a hard stop around
 * them: it terminates the worker at the time limit and on cancel (`sandbox.ts`).
 *
 * Ends as data, never a throw: `{ ok: false, code, message }` names the failure; `isClean` says
 * whether the engine disposed everything, so the worker may take another program.
 */
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from 'quickjs-emscripten'
import type { QuickJSDeferredPromise, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten'
import type { CallReply, EngineEnd, ProgramLimits } from './messages.js'

/** What the engine needs from the thread that runs it. */
export interface EngineHost {
  readonly toolNames: readonly string[]
  /** Runs one call; must not reject (a failure is a reply). */
  call(name: string, argsJson: string): Promise<CallReply>
  /** One console line, already capped. */
  log(line: string): void
}

/** The most console text kept; a program printing in a loop must not fill the host's memory. */
export const MAX_CONSOLE_CHARS = 1_000_000
const STACK_BYTES = 1024 * 1024

/** Names the program might reach for; each throws a sentence saying what to use instead. */
const ABSENT = ['require', 'process', 'fetch', 'XMLHttpRequest', 'WebSocket', 'module', 'Buffer']

/**
 * Evaluated once per run: installs `console` and `tools` from the two host functions (which stay
 * out of reach in this closure), makes the absent names throw, then runs the program and returns
 * its value as JSON text.
 */
const PRELUDE = `(function (hostCall, hostLog, namesJson, absentJson, program) {
  'use strict';
  const show = (v) => {
    if (typeof v === 'string') return v;
    try { const j = JSON.stringify(v); return j === undefined ? String(v) : j; } catch { return String(v); }
  };
  const line = (level) => (...args) => { hostLog(level, args.map(show).join(' ')); };
  globalThis.console = Object.freeze({ log: line('log'), info: line('info'), warn: line('warn'), error: line('error') });
  const call = async (name, args) => {
    const reply = JSON.parse(await hostCall(name, JSON.stringify(args === undefined ? {} : args)));
    if (reply.ok) return reply.output;
    const error = new Error(reply.code + ': ' + reply.message);
    error.code = reply.code;
    throw error;
  };
  const tools = {};
  for (const name of JSON.parse(namesJson)) tools[name] = (args) => call(name, args);
  globalThis.tools = Object.freeze(tools);
  for (const name of JSON.parse(absentJson)) {
    Object.defineProperty(globalThis, name, { get() {
      throw new ReferenceError(name + ' is not available in run_code: the program has no Node, file system or network of its own; call tools.<name>(args) instead');
    } });
  }
  return (async () => {
    const value = await program();
    return value === undefined ? '' : JSON.stringify({ value: typeof value === 'string' ? value : show(value) });
  })();
})`

type Stop = { readonly code: string; readonly message: string }

/**
 * Node's WebAssembly.Memory, typed here: the Node tsconfig has no DOM lib, so neither the global
 * nor quickjs-emscripten's `wasmMemory` option has a type of its own in this build.
 */
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => object }
  }
).WebAssembly.Memory
const WASM_PAGE_BYTES = 64 * 1024
/** What the engine itself needs before any program (its own data and stack), in pages: 16 MB. */
const ENGINE_BASE_PAGES = 256
/** The most memory the WebAssembly module accepts (it declares 2 GB): the largest heap limit. */
const ENGINE_MAX_PAGES = 32_768
/** The largest heap limit QuickJS can take here (its sizes are 32-bit): what the memory holds. */
const MAX_HEAP_BYTES = (ENGINE_MAX_PAGES - ENGINE_BASE_PAGES) * WASM_PAGE_BYTES

/**
 * Loads the engine (the WebAssembly module) in a memory that cannot grow past its base plus twice
 * `heapBytes`. QuickJS's own heap limit (`heapBytes`, set on each runtime) ends most programs
 * first, with its out-of-memory error; but it does not count every allocation (an ArrayBuffer's
 * bytes escape it), so the bounded memory is what finally holds a program: past it, allocation
 * fails and the program ends with the same error. Twice, so that QuickJS's own limit, with its
 * allocator's overhead on top, fits in the memory and stays the one usually reached.
 */
export function loadEngine(heapBytes: number): Promise<QuickJSWASMModule> {
  const memory = new WasmMemory({
    initial: ENGINE_BASE_PAGES,
    maximum: Math.min(
      ENGINE_MAX_PAGES,
      ENGINE_BASE_PAGES + Math.ceil((2 * heapBytes) / WASM_PAGE_BYTES),
    ),
  })
  return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory as never }))
}

/** Runs `code` (the body of an async function) in a new QuickJS runtime of `quickjs`. */
export async function runInEngine(
  quickjs: QuickJSWASMModule,
  code: string,
  host: EngineHost,
  limits: ProgramLimits,
): Promise<EngineEnd> {
  const runtime = quickjs.newRuntime()
  runtime.setMemoryLimit(Math.min(limits.memoryBytes, MAX_HEAP_BYTES))
  runtime.setMaxStackSize(STACK_BYTES)
  const vm = runtime.newContext()
  let logged = 0
  let calls = 0
  let isDone = false
  const pending = new Set<QuickJSDeferredPromise>()
  const deadline = Date.now() + limits.timeoutMs

  let stopWith: Stop | undefined
  let onStop: (stop: Stop) => void = () => undefined
  const stopped = new Promise<Stop>((resolve) => (onStop = resolve))
  const stop = (reason: Stop) => {
    stopWith ??= reason
    onStop(stopWith)
  }
  const timeLimit: Stop = {
    code: 'CODE_TIME_LIMIT',
    message: `The program ran past its time limit of ${limits.timeoutMs / 1000} s and was stopped.`,
  }
  runtime.setInterruptHandler(() => {
    if (Date.now() > deadline) stop(timeLimit)
    return stopWith !== undefined
  })
  const timer = setTimeout(() => stop(timeLimit), limits.timeoutMs)

  type Outcome = { ok: true; text: string } | { ok: false; error: unknown }
  let settle: (outcome: Outcome) => void = () => undefined
  const settled = new Promise<Outcome>((resolve) => (settle = resolve))
  let promise: QuickJSHandle | undefined
  /** Runs what the program can run now, then looks whether it has finished. */
  const pump = () => {
    if (isDone || !promise) return
    const jobs = runtime.executePendingJobs()
    if (jobs.error) {
      settle({ ok: false, error: vm.dump(jobs.error) })
      jobs.error.dispose()
      return
    }
    const state = vm.getPromiseState(promise)
    if (state.type === 'fulfilled') {
      settle({ ok: true, text: vm.getString(state.value) })
      state.value.dispose()
    } else if (state.type === 'rejected') {
      settle({ ok: false, error: vm.dump(state.error) })
      state.error.dispose()
    }
  }

  const hostCall = vm.newFunction('hostCall', (nameHandle, argsHandle) => {
    const name = vm.getString(nameHandle)
    const args = vm.getString(argsHandle)
    const deferred = vm.newPromise()
    pending.add(deferred)
    if (++calls > limits.maxCalls) {
      stop({
        code: 'CODE_CALL_LIMIT',
        message: `The program made more than ${limits.maxCalls} tool calls and was stopped.`,
      })
      return deferred.handle
    }
    void host.call(name, args).then((reply) => {
      if (isDone) return
      pending.delete(deferred)
      const text = vm.newString(JSON.stringify(reply))
      deferred.resolve(text)
      text.dispose()
      deferred.dispose()
      pump()
    })
    return deferred.handle
  })
  const hostLog = vm.newFunction('hostLog', (levelHandle, textHandle) => {
    if (logged >= MAX_CONSOLE_CHARS) return
    const level = vm.getString(levelHandle)
    const text = vm.getString(textHandle)
    const kept = text.slice(0, MAX_CONSOLE_CHARS - logged)
    logged += kept.length
    host.log(
      (level === 'log' || level === 'info' ? '' : `[${level}] `) +
        kept +
        (kept.length < text.length ? ' [console output cut: too long]' : ''),
    )
  })

  const end = async (): Promise<EngineEnd> => {
    const compiled = vm.evalCode(`(async function () {\n${code}\n})`, 'program.js')
    if (compiled.error) {
      const error: unknown = vm.dump(compiled.error)
      compiled.error.dispose()
      return programError(error, undefined, limits)
    }
    const prelude = vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js'))
    const names = vm.newString(JSON.stringify(host.toolNames))
    const absent = vm.newString(JSON.stringify(ABSENT))
    const started = vm.callFunction(
      prelude,
      vm.undefined,
      hostCall,
      hostLog,
      names,
      absent,
      compiled.value,
    )
    for (const handle of [prelude, names, absent, compiled.value]) handle.dispose()
    if (started.error) {
      const error: unknown = vm.dump(started.error)
      started.error.dispose()
      return programError(error, stopWith, limits)
    }
    promise = started.value
    pump()
    const outcome = await Promise.race([settled, stopped])
    if (stopWith) return { ok: false, ...stopWith }
    if ('code' in outcome) return { ok: false, ...outcome }
    if (!outcome.ok) return programError(outcome.error, stopWith, limits)
    const value =
      outcome.text === '' ? undefined : (JSON.parse(outcome.text) as { value: string }).value
    return { ok: true, ...(value === undefined ? {} : { value }) }
  }

  let result: EngineEnd
  try {
    result = await end()
  } finally {
    isDone = true
    clearTimeout(timer)
  }
  // A limit may leave the heap in any state: the worker is thrown away rather than tidied.
  if (!result.ok && (stopWith || result.code === 'CODE_MEMORY_LIMIT')) return result
  try {
    for (const deferred of pending) deferred.dispose()
    promise?.dispose()
    hostCall.dispose()
    hostLog.dispose()
    vm.dispose()
    runtime.dispose()
  } catch {
    return result
  }
  return { ...result, isClean: true }
}

/** The program's own failure (a throw, a syntax error, the heap limit), for the model. */
function programError(error: unknown, stop: Stop | undefined, limits: ProgramLimits): EngineEnd {
  if (stop) return { ok: false, ...stop }
  const { name, message } = describe(error)
  if (/out of memory/i.test(message))
    return {
      ok: false,
      code: 'CODE_MEMORY_LIMIT',
      message: 'The program ran out of memory (its heap is limited) and was stopped.',
    }
  // With no memory left even for its error, QuickJS throws nothing but null.
  if (error === null || error === '')
    return {
      ok: false,
      code: 'CODE_FAILED',
      message: `The program threw ${error === null ? 'null' : 'an empty string'}: unless it threw that itself, it ran out of memory (its heap is limited to ${limits.memoryBytes / 1024 / 1024} MB).`,
    }
  return { ok: false, code: 'CODE_FAILED', message: `The program threw ${name}: ${message}` }
}

function describe(error: unknown): { name: string; message: string } {
  if (typeof error === 'object' && error !== null) {
    const record = error as Record<string, unknown>
    return {
      name: typeof record['name'] === 'string' ? record['name'] : 'an error',
      message: typeof record['message'] === 'string' ? record['message'] : JSON.stringify(error),
    }
  }
  return { name: 'a value', message: String(error) }
}
