/**
 * The tool contract: what a tool declares (schema, kind, concurrency) and what it receives when
 * it runs. The pipeline (registry, approvals, guards, batches, output caps) is built on this;
 * tools themselves only validate what their schema cannot express and do the work.
 */
import type { z } from 'zod'
import type { JsonValue } from '../../../protocol/events.js'

/** What a call does to the world, for approval policies. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'other'

export interface ToolContext {
  /** The project folder, already resolved with realpath. Every path a tool touches stays inside. */
  readonly projectDir: string
  /** The id of the call being run (as logged on its `tool/call`), when the pipeline runs it. */
  readonly callId?: string
  /** Aborted on the user's cancel (fused with any timeout the pipeline adds). Tools must stop. */
  readonly signal: AbortSignal
  /**
   * Called with the absolute path of every file the tool is about to create, change or delete,
   * before it does, so the workspace can snapshot the old content for the turn's diff.
   */
  readonly beforeWrite: (absolutePath: string) => void
  /**
   * What the agent last saw of each file in this session (content hashes), so `write` and `edit`
   * can refuse to overwrite a change the user made since (STALE_FILE). Absent: no check.
   */
  readonly files?: FileLedger
  /** How this call came to be allowed, and what it may do beyond the defaults. */
  readonly grant?: CallGrant
  /** A command tool calls this once its process is started, so the log can name the process. */
  readonly onProcess?: (process: ProcessRecord) => void
  /**
   * The session's other tools, for a tool that calls them itself (code mode's `run_code`): each
   * call goes through the whole pipeline and is logged linked to this one. Absent inside such a
   * call, so a program cannot start another program.
   */
  readonly inner?: InnerCalls
}

/** What a linked call gave back: its (capped) output, or its failure's code and sentence. */
export type InnerResult =
  | { readonly ok: true; readonly output: string }
  | { readonly ok: false; readonly code: string; readonly message: string }

export interface InnerCalls {
  /** The tools that may be called (the calling tool itself left out). */
  readonly tools: readonly Tool[]
  /**
   * Runs one call, named with `argsJson` as a model would send it, through validation, guards,
   * approval, dispatch and caps; logs it linked to the calling tool's call. Calls run one at a
   * time, in the order made. Rejects only when the log cannot take the call.
   */
  call(name: string, argsJson: string, signal: AbortSignal): Promise<InnerResult>
  /** Resolves once every call made so far has its result logged. */
  idle(): Promise<void>
}

/**
 * The content hash (sha256, hex) of each file as the agent last read or wrote it, by absolute
 * path. `null` records that the agent saw the file absent (or deleted it).
 */
export interface FileLedger {
  seen(absolutePath: string): string | null | undefined
  saw(absolutePath: string, sha256: string | null): void
}

export interface CallGrant {
  /** Who allowed it: the approval mode, a standing rule, or the user for this call. */
  readonly by: 'mode' | 'rule' | 'user'
  /** The call may use the network (a sandboxed command has none otherwise). */
  readonly network: boolean
  /**
   * The user approved this very call although it touches protected paths (`.git/config`,
   * hooks): a sandbox then leaves them writable for it.
   */
  readonly protectedPaths: boolean
}

/** A started command: enough to find it again after a crash and to tell it from a reused pid. */
export interface ProcessRecord {
  readonly pid: number
  /** The process group the command leads (equal to pid for a detached spawn). */
  readonly pgid: number
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), if known. */
  readonly startTicks?: number
  readonly sandboxed: boolean
}

/**
 * How careful to be with one call, from what the call would do (not who asks): `normal` follows
 * the approval mode; `confirm` needs this call's own approval in every mode (no standing grant,
 * refused in full-auto); `refuse` never runs.
 */
export interface CallAssessment {
  readonly level: 'normal' | 'confirm' | 'refuse'
  /** In words a person understands: why it is not normal. Empty when normal. */
  readonly reasons: readonly string[]
  /**
   * Whether a standing "always allow" may ever cover calls like this one (default true for
   * `normal`, always false otherwise): a recursive delete runs in full-auto, yet no grant covers it.
   */
  readonly grantable?: boolean
  /** The call asks for the network (a command that downloads); never covered by a grant. */
  readonly network?: boolean
  /**
   * Why nothing can be shown to keep the call inside the project (a command that will run
   * without the sandbox, and that the judge cannot prove stays inside): the approval mode alone
   * never runs it, full-auto included; it is put to the user (refused when nobody can be asked),
   * and only an allow rule the user kept lets it pass unasked. Absent or empty: the mode decides.
   */
  readonly uncontained?: readonly string[]
}

/**
 * Standing grants for a tool whose calls a plain prefix cannot describe safely (bash: patterns
 * on the parsed command). A grant is one pattern; an option offered to the user may hold several,
 * one per line (a line that runs two programs). Called only after `assess`, which may prepare
 * what they need.
 */
export interface ToolGrants<A = unknown> {
  /** What "always allow" could keep for this call, the suggested one first; undefined: nothing. */
  options(args: A, ctx: { readonly projectDir: string }): readonly string[] | undefined
  /** Whether these kept grants together cover the whole call. */
  covers(grants: readonly string[], args: A, ctx: { readonly projectDir: string }): boolean
  /** Whether any part of the call matches one of these (a "never" rule). */
  touches(grants: readonly string[], args: A, ctx: { readonly projectDir: string }): boolean
}

export interface ToolOutput {
  /** What the model is shown (the pipeline caps it and spills the rest to a file). */
  readonly output: string
  /** The exact bytes when the output is not text; kept in the spill file, never shown. */
  readonly raw?: Uint8Array
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
  /**
   * The JSON Schema the model is shown, when the tool came with one (an MCP server's): shown as
   * it is instead of one made from `schema`, which still checks every call.
   */
  readonly parameters?: Readonly<Record<string, unknown>>
  readonly kind: ToolKind
  /**
   * The most careful approval mode in which its calls run without asking; by default from its
   * kind (`read`: every mode, `edit`: from `auto-edit`, others: only `full-auto`).
   */
  readonly runsUnaskedFrom?: 'ask' | 'auto-edit' | 'full-auto'
  /** The MCP server and its own name for the tool, for a tool an MCP server provides. */
  readonly mcp?: { readonly server: string; readonly tool: string }
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
  /** Standing grants by pattern; without it a remembered rule is an `approvalKey` prefix. */
  readonly grants?: ToolGrants<z.output<S>>
  /** What this call would do that needs more care than its kind says (see CallAssessment). */
  assess?(
    args: z.output<S>,
    ctx: { readonly projectDir: string },
  ): CallAssessment | Promise<CallAssessment>
  /** Throws a ToolError for failures the model should see with a code; anything else is TOOL_FAILED. */
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>
}

export { ToolError } from '../kernel/tool-error.js'

/** Defines a tool with its argument types inferred from its schema. */
export const defineTool = <S extends z.ZodType>(tool: Tool<S>): Tool => tool
