/**
 * Runs a model's program off the host's thread: in the QuickJS engine (`engine.ts`) inside a
 * `worker_threads` Worker (`worker.ts`). The host's event loop (streaming, the UI bridge, other
 * sessions) keeps running while a program computes, even in a busy loop.
 *
 * The contract is `ProgramHost`: each tool call the program makes arrives here as a message, runs
 * through `host.call` on this thread, and its reply goes back; console lines and the end come back
 * as messages. Stops: the engine's own limits (time by its interrupt handler, heap, tool calls)
 * end the program with its console output; a hard stop around them terminates the worker, which
 * ends even a busy loop at once: on cancel, and at the time limit when the engine has not stopped
 * itself by then.
 *
 * Workers: a program that ended by itself (a value, or a throw) leaves its worker to the next
 * program (a new QuickJS runtime each time; a few idle workers are kept, unref'ed so they never
 * hold the process open). A worker whose program was stopped is terminated, never reused.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { ToolError } from '../types.js'
import type { CallReply, FromWorker, ProgramLimits, ToWorker, WorkerData } from './messages.js'

export type { CallReply, ProgramLimits } from './messages.js'

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

/** The bundled worker's file, next to the bundle of the main process (electron.vite.config.ts). */
export const CODE_WORKER_FILE = 'code-worker.js'
/** How long after its deadline the engine may take to stop itself before its worker is ended. */
const HARD_STOP_GRACE_MS = 250
/** Idle workers kept for the next programs; more programs at once start more workers. */
const MAX_IDLE_WORKERS = 2
/**
 * The worker's own V8 heap (messages, strings in transit), a backstop: the program's heap is the
 * engine's, limited by `memoryBytes`.
 */
const WORKER_HEAP_MB = 256

/** Idle workers with the heap size their engine was loaded with. */
const idle: { readonly worker: Worker; readonly heapBytes: number }[] = []

/** An idle worker whose engine has this heap, or a new one. */
function takeWorker(heapBytes: number): Worker {
  const at = idle.findIndex((entry) => entry.heapBytes === heapBytes)
  if (at < 0) return startWorker({ heapBytes })
  const [entry] = idle.splice(at, 1)
  return entry?.worker ?? startWorker({ heapBytes })
}

/** Runs `code` (the body of an async function) and returns what it printed and returned. */
export function runProgram(
  code: string,
  host: ProgramHost,
  limits: ProgramLimits,
  signal: AbortSignal,
): Promise<ProgramResult> {
  if (signal.aborted) return Promise.reject(aborted([]))
  const worker = takeWorker(limits.memoryBytes)
  worker.ref()
  return new Promise<ProgramResult>((resolve, reject) => {
    const logs: string[] = []
    let isFinished = false
    const timeLimit = () =>
      finish(
        false,
        new ToolError(
          'CODE_TIME_LIMIT',
          withLogs(
            `The program ran past its time limit of ${limits.timeoutMs / 1000} s and was stopped.`,
            logs,
          ),
        ),
      )
    // Armed now (a worker that never starts is stopped too), again when the program's clock runs.
    let timer = setTimeout(timeLimit, limits.timeoutMs + HARD_STOP_GRACE_MS)

    const onMessage = (message: FromWorker) => {
      if (isFinished) return
      switch (message.type) {
        case 'started':
          clearTimeout(timer)
          timer = setTimeout(timeLimit, limits.timeoutMs + HARD_STOP_GRACE_MS)
          return
        case 'log':
          logs.push(message.line)
          return
        case 'call':
          void host.call(message.name, message.args).then((reply) => {
            if (!isFinished) post(worker, { type: 'reply', id: message.id, reply })
          })
          return
        case 'end': {
          const { end } = message
          if (end.ok)
            finish(end.isClean === true, {
              logs,
              ...(end.value === undefined ? {} : { value: end.value }),
            })
          else finish(end.isClean === true, new ToolError(end.code, withLogs(end.message, logs)))
        }
      }
    }
    const onError = (error: Error) => {
      const code = (error as { code?: unknown }).code
      finish(
        false,
        code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ToolError(
              'CODE_MEMORY_LIMIT',
              withLogs('The program ran out of memory and was stopped.', logs),
            )
          : new ToolError(
              'CODE_FAILED',
              withLogs(`The program's engine failed: ${error.message}`, logs),
            ),
      )
    }
    const onExit = (exitCode: number) =>
      finish(
        false,
        new ToolError(
          'CODE_FAILED',
          withLogs(`The program's engine stopped unexpectedly (exit code ${exitCode}).`, logs),
        ),
      )
    const onAbort = () => finish(false, aborted(logs))

    function finish(isReusable: boolean, outcome: ProgramResult | ToolError) {
      if (isFinished) return
      isFinished = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
      if (isReusable && idle.length < MAX_IDLE_WORKERS) {
        worker.unref()
        idle.push({ worker, heapBytes: limits.memoryBytes })
      } else {
        // A hard stop: ends the thread even in the middle of a busy loop.
        void worker.terminate()
      }
      if (outcome instanceof ToolError) reject(outcome)
      else resolve(outcome)
    }

    worker.on('message', onMessage)
    worker.on('error', onError)
    worker.on('exit', onExit)
    signal.addEventListener('abort', onAbort, { once: true })
    post(worker, { type: 'run', code, toolNames: host.toolNames, limits })
  })
}

function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message)
}

function aborted(logs: readonly string[]): ToolError {
  return new ToolError('ABORTED', withLogs('The turn was stopped.', logs))
}

function withLogs(message: string, logs: readonly string[]): string {
  return logs.length === 0
    ? message
    : `${message}\nConsole output before it stopped:\n${logs.join('\n')}`
}

/**
 * Starts a code worker: the bundled `code-worker.js` next to this file's bundle, or, running from
 * sources (vitest, tsx), `worker.ts` through tsx's loader registered inside the new thread.
 */
function startWorker(workerData: WorkerData): Worker {
  const here = import.meta.url
  const options = { workerData, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } }
  const worker = here.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./worker.ts', here).href)}) })`,
        { ...options, eval: true },
      )
    : new Worker(new URL(`./${CODE_WORKER_FILE}`, here), options)
  // An idle worker that fails or ends leaves the pool; a running one is handled by its run.
  worker.on('error', () => undefined)
  worker.once('exit', () => {
    const at = idle.findIndex((entry) => entry.worker === worker)
    if (at >= 0) idle.splice(at, 1)
  })
  return worker
}

/** tsx's module API (ESM), found through its package's exports. */
function tsxApi(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('tsx/package.json')
  const exports = (
    JSON.parse(readFileSync(manifest, 'utf8')) as {
      exports: Record<string, { import: { default: string } }>
    }
  ).exports
  const entry = exports['./esm/api']?.import.default
  if (entry === undefined) throw new Error('tsx has no ./esm/api export to run the code worker')
  return pathToFileURL(join(dirname(manifest), entry)).href
}
