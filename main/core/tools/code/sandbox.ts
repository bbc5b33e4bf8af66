/**
 * Runs a model's program in QuickJS compiled to WebAssembly: a separate JavaScript engine with
 * its own heap, and no Node, file system, network or timers of its own. Only strings cross the
 * boundary (tool arguments and results as JSON text, console lines as text), so nothing the
 * program is given leads back to the host through a constructor or a prototype.
 *
 * Limits: a deadline checked by the engine's interrupt handler (so a busy loop stops, also one
 * after an `await`) and by a host timer (so a program waiting forever stops), a heap limit, and
 * a cap on tool calls. Each ends the program with a ToolError naming the limit.
 */
import { getQuickJS } from 'quickjs-emscripten'
import type { QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten'
import { ToolError } from '../types.js'

export interface ProgramLimits {
  readonly timeoutMs: number
  readonly memoryBytes: number
  readonly maxCalls: number
}

/** What one tool call gave the program: its output, or the failure the program sees thrown. */
export type CallReply =
  | { readonly ok: true; readonly output: string }
  | { readonly ok: false; readonly code: string; readonly message: string }

export interface ProgramHost {
  /** The tools the program may call, by name. */
  readonly toolNames: readonly string[]
  /** Runs one call; must not reject (a failure is a reply). */
  call(name: string, argsJson: string): Promise<CallReply>
}

export interface ProgramResult {
  /** What the program printed through `console`, one entry a call. */
  readonly logs: readonly string[]
  /** What it returned: a string as it is, anything else as JSON; undefined when nothing. */
  readonly value?: string
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

/** Runs `code` (the body of an async function) and returns what it printed and returned. */
export async function runProgram(
  code: string,
  host: ProgramHost,
  limits: ProgramLimits,
  signal: AbortSignal,
): Promise<ProgramResult> {
  const quickjs = await getQuickJS()
  const runtime = quickjs.newRuntime()
  runtime.setMemoryLimit(limits.memoryBytes)
  runtime.setMaxStackSize(STACK_BYTES)
  const vm = runtime.newContext()
  const logs: string[] = []
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
    else if (signal.aborted) stop({ code: 'ABORTED', message: 'The turn was stopped.' })
    return stopWith !== undefined
  })
  const timer = setTimeout(() => stop(timeLimit), limits.timeoutMs)
  const onAbort = () => stop({ code: 'ABORTED', message: 'The turn was stopped.' })
  signal.addEventListener('abort', onAbort, { once: true })

  let settle: (outcome: { ok: true; text: string } | { ok: false; error: unknown }) => void = () =>
    undefined
  const settled = new Promise<{ ok: true; text: string } | { ok: false; error: unknown }>(
    (resolve) => (settle = resolve),
  )
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
    if (++calls > limits.maxCalls) {
      stop({
        code: 'CODE_CALL_LIMIT',
        message: `The program made more than ${limits.maxCalls} tool calls and was stopped.`,
      })
      pending.add(deferred)
      return deferred.handle
    }
    pending.add(deferred)
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
    logs.push(
      (level === 'log' || level === 'info' ? '' : `[${level}] `) +
        kept +
        (kept.length < text.length ? ' [console output cut: too long]' : ''),
    )
  })

  try {
    const compiled = vm.evalCode(`(async function () {\n${code}\n})`, 'program.js')
    if (compiled.error) {
      const error: unknown = vm.dump(compiled.error)
      compiled.error.dispose()
      throw programError(error, logs, undefined)
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
      throw programError(error, logs, stopWith)
    }
    promise = started.value
    pump()
    const outcome = await Promise.race([settled, stopped])
    if (stopWith) throw new ToolError(stopWith.code, withLogs(stopWith.message, logs))
    if ('code' in outcome) throw new ToolError(outcome.code, withLogs(outcome.message, logs))
    if (!outcome.ok) throw programError(outcome.error, logs, stopWith)
    const value =
      outcome.text === '' ? undefined : (JSON.parse(outcome.text) as { value: string }).value
    return { logs, ...(value === undefined ? {} : { value }) }
  } finally {
    isDone = true
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
    for (const deferred of pending) deferred.dispose()
    promise?.dispose()
    hostCall.dispose()
    hostLog.dispose()
    vm.dispose()
    runtime.dispose()
  }
}

/** The program's own failure (a throw, a syntax error, the heap limit), for the model. */
function programError(error: unknown, logs: readonly string[], stop: Stop | undefined): ToolError {
  if (stop) return new ToolError(stop.code, withLogs(stop.message, logs))
  const { name, message } = describe(error)
  if (/out of memory/i.test(message))
    return new ToolError(
      'CODE_MEMORY_LIMIT',
      withLogs('The program ran out of memory (its heap is limited) and was stopped.', logs),
    )
  return new ToolError('CODE_FAILED', withLogs(`The program threw ${name}: ${message}`, logs))
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

function withLogs(message: string, logs: readonly string[]): string {
  return logs.length === 0
    ? message
    : `${message}\nConsole output before it stopped:\n${logs.join('\n')}`
}
