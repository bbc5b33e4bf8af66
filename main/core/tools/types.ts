/**
 * The tool contract: what a tool declares (schema, kind, concurrency) and what it receives when
 * it runs. The pipeline (registry, approvals, guards, batches, output caps) is built on this;
 * tools themselves only validate what their schema cannot express and do the work.
 */
import type { z } from 'zod'
import type { JsonValue } from '../log/events.js'

/** What a call does to the world, for approval policies. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'other'

export interface ToolContext {
  /** The project folder, already resolved with realpath. Every path a tool touches stays inside. */
  readonly projectDir: string
  /** Aborted on the user's cancel (fused with any timeout the pipeline adds). Tools must stop. */
  readonly signal: AbortSignal
  /**
   * Called with the absolute path of every file the tool is about to create, change or delete,
   * before it does, so the workspace can snapshot the old content for the turn's diff.
   */
  readonly beforeWrite: (absolutePath: string) => void
}

export interface ToolOutput {
  /** What the model is shown (the pipeline caps it and spills the rest to a file). */
  readonly output: string
  /** Facts for the UI and the log (e.g. `{ exitCode: 1, durationMs: 840 }` for bash). */
  readonly metadata?: Readonly<Record<string, JsonValue>>
  /**
   * Files the call declares as deliverables (the `present` tool): the pipeline logs them as
   * `deliverable/present` after the result, and the UI shows them while they exist.
   */
  readonly deliverables?: { readonly paths: readonly string[]; readonly note?: string }
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string
  /** Model-facing: what the tool does, when to use it, its limits. */
  readonly description: string
  /**
   * One short line for the lean prompt of small windows (8k tokens or less), where the full
   * description costs too much: what it does and what its arguments mean.
   */
  readonly brief?: string
  readonly schema: S
  readonly kind: ToolKind
  /**
   * True when this call may run alongside other safe calls. Missing, false or a throw means the
   * call is exclusive (a barrier in its batch).
   */
  isConcurrencySafe?(args: z.output<S>): boolean
  /** A one-line account of what this call will do, shown in an approval prompt. */
  describe?(args: z.output<S>): string
  /**
   * For "always allow": the part of the call a remembered rule matches (bash: the command's first
   * words; a file tool: the path). `undefined` means no standing rule may cover this call (a
   * compound shell command), so it is asked every time.
   */
  approvalKey?(args: z.output<S>): string | undefined
  /** Throws a ToolError for failures the model should see with a code; anything else is TOOL_FAILED. */
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>
}

/** A failure a tool reports with a code the model (and tests) can act on. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ToolError'
  }
}

/** Defines a tool with its argument types inferred from its schema. */
export const defineTool = <S extends z.ZodType>(tool: Tool<S>): Tool => tool
