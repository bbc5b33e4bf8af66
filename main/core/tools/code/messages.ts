/**
 * What the host thread (`sandbox.ts`) and the code worker (`worker.ts`) say to each other. Types
 * only: the worker's bundle shares no code with the host's.
 *
 * host -> worker: `run` (one program at a time), `reply` (the answer to one of its calls).
 * worker -> host: `started` (the engine is loaded and the program's clock runs), `call`, `log`,
 * `end` (the program's value or failure; with `isClean` the worker can take another program).
 */

export interface ProgramLimits {
  readonly timeoutMs: number
  readonly memoryBytes: number
  readonly maxCalls: number
}

/** What one tool call gave the program: its output, or the failure the program sees thrown. */
export type CallReply =
  | { readonly ok: true; readonly output: string }
  | { readonly ok: false; readonly code: string; readonly message: string }

/** How a program ended: its value (a string as it is, anything else as JSON), or a failure. */
export type EngineEnd =
  | { readonly ok: true; readonly value?: string; readonly isClean?: true }
  | {
      readonly ok: false
      readonly code: string
      readonly message: string
      readonly isClean?: true
    }

/** Given to a worker when it starts: its engine's heap, fixed for the worker's life. */
export interface WorkerData {
  readonly heapBytes: number
}

export type ToWorker =
  | {
      readonly type: 'run'
      readonly code: string
      readonly toolNames: readonly string[]
      readonly limits: ProgramLimits
    }
  | { readonly type: 'reply'; readonly id: number; readonly reply: CallReply }

export type FromWorker =
  | { readonly type: 'started' }
  | { readonly type: 'call'; readonly id: number; readonly name: string; readonly args: string }
  | { readonly type: 'log'; readonly line: string }
  | { readonly type: 'end'; readonly end: EngineEnd }
