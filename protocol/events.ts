/**
 * The event vocabulary of the log (the contract of docs/ARCHITECTURE.md 3). One zod schema per type,
 * each with a version; `LogEvent` is their discriminated union. Rows read back from the store are
 * parsed with these schemas, so an invalid or unknown row is found, never skipped.
 */
import { z } from 'zod'
import { Attachment, MAX_ATTACHMENTS } from './attachments.js'

export const SessionId = z.string().min(1).max(64).brand<'SessionId'>()
export type SessionId = z.infer<typeof SessionId>

export const CallId = z.string().min(1).max(200)

/**
 * The call a linked call was made from: a `run_code` program's inner calls name it on their
 * `tool/call`, `tool/result` and approval events. A linked call is valid only while its parent
 * runs, and its result is never a model-visible message of its own (the model sees the parent's).
 */
export const CallLink = z.object({ callId: CallId })
export type CallLink = z.infer<typeof CallLink>

/**
 * JSON-safe values only: what goes in the log must come back out byte for byte. A hand-written
 * check rather than a recursive zod union: it runs on every tool call's arguments when a long
 * session is opened, and is an order of magnitude faster.
 */
export const Json = z
  .custom<JsonValue>(isJsonValue, { error: 'must be plain JSON (finite numbers, no undefined)' })
  // A copy, like every other schema's output: the event must not share objects with the caller.
  .transform(cloneJson)

function cloneJson(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(cloneJson)
  const copy: Record<string, JsonValue> = {}
  for (const key in value) {
    const item = value[key]
    if (item !== undefined) copy[key] = cloneJson(item)
  }
  return copy
}

function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0)
    case 'object': {
      if (value === null) return true
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++)
          if (!(i in value) || !isJsonValue(value[i])) return false
        return true
      }
      const proto = Object.getPrototypeOf(value) as unknown
      if (proto !== Object.prototype && proto !== null) return false
      for (const key in value) {
        if (!isJsonValue((value as Record<string, unknown>)[key])) return false
      }
      return true
    }
    default:
      return false
  }
}

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export const TurnEndReason = z.enum([
  'completed',
  'cancelled',
  'error',
  'max-steps',
  'max-time',
  /** A pre-step plugin refused the turn's input before any step ran. */
  'rejected',
  'interrupted-by-crash',
  /** The session was forked inside this turn; the child closes the turn at the fork point. */
  'interrupted-by-fork',
  /** The harness was told to stop (SIGTERM, SIGHUP, the app quitting) while the turn ran. */
  'interrupted',
])
export type TurnEndReason = z.infer<typeof TurnEndReason>

export const StepEndReason = z.enum([
  'tool-calls',
  'completed',
  'cancelled',
  'error',
  'max-tokens',
  'rejected',
  'interrupted-by-crash',
  'interrupted-by-fork',
])
export type StepEndReason = z.infer<typeof StepEndReason>

export const ToolErrorCode = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'error codes are UPPER_SNAKE')

/** Error codes the log itself produces when it closes what a crash or a fork left open. */
export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED'
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

export const TextBlock = z.object({ type: z.literal('text'), text: z.string() })
export const ReasoningBlock = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  /** Provider-specific proof that must be sent back verbatim (e.g. an encrypted signature). */
  signature: z.string().optional(),
})
export const ToolCallBlock = z.object({
  type: z.literal('tool-call'),
  callId: CallId,
  name: z.string().min(1),
  /** The arguments exactly as the model sent them (JSON text); parsed by the tool pipeline. */
  args: z.string(),
})
export const AssistantBlock = z.discriminatedUnion('type', [
  TextBlock,
  ReasoningBlock,
  ToolCallBlock,
])
export type AssistantBlock = z.infer<typeof AssistantBlock>
export type ToolCallBlock = z.infer<typeof ToolCallBlock>

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedInputTokens: z.number().int().nonnegative().optional(),
})

/** A request's prompt in tokens, by part (see main/core/tokens). */
export const TokenEstimate = z.object({
  /** The whole prompt, calibrated: what budgets and compaction go by. */
  tokens: z.number().int().nonnegative(),
  /** The same before calibration: what the server's figure is compared with to learn a ratio. */
  uncalibrated: z.number().int().nonnegative(),
  system: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  history: z.number().int().nonnegative(),
  /** `o200k_base`, `cl100k_base` (the model's own tokenizer) or `estimate`. */
  method: z.string().min(1),
})
export type TokenEstimate = z.infer<typeof TokenEstimate>

export const FinishReason = z.enum([
  'stop',
  'tool-calls',
  'max-tokens',
  'content-filter',
  'error',
  'cancelled',
  'other',
])
export type FinishReason = z.infer<typeof FinishReason>

export const ChunkDelta = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('reasoning'), text: z.string() }),
  /** The text streamed so far in this reply was reasoning (a template opened `<think>`). */
  z.object({ kind: z.literal('text-is-reasoning') }),
  z.object({
    kind: z.literal('tool-call'),
    index: z.number().int().nonnegative(),
    callId: z.string().optional(),
    name: z.string().optional(),
    argsDelta: z.string().optional(),
  }),
])
export type ChunkDelta = z.infer<typeof ChunkDelta>

export const ToolError = z.object({ code: ToolErrorCode, message: z.string() })

/**
 * How a request was put on the wire: the adapter's profile of the server when it was sent, so
 * that the exact body can be rebuilt from the log. Absent in logs written before profiles
 * (they were all `DEFAULT_WIRE`).
 */
export const WireSettings = z.object({
  /** `openai`: POST /chat/completions; `ollama`: Ollama's native POST /api/chat. */
  api: z.enum(['openai', 'ollama']),
  /**
   * `native`: the tools as the API's `tools`, streamed; `native-nonstream`: the same, not
   * streamed (servers that cannot stream calls); `text`: the tools described in the system
   * prompt and the calls read from the reply's text.
   */
  toolCalls: z.enum(['native', 'native-nonstream', 'text']),
  /** `stream_options: { include_usage: true }` was sent (the OpenAI API only). */
  streamUsage: z.boolean(),
  /** Reasoning went back as `reasoning_content` on assistant messages (DeepSeek thinking mode). */
  replayReasoning: z.boolean(),
  /** Ollama's `options.num_ctx`: the window the server was asked to run. */
  numCtx: z.number().int().positive().optional(),
})
export type WireSettings = z.infer<typeof WireSettings>

export const DEFAULT_WIRE: WireSettings = {
  api: 'openai',
  toolCalls: 'native',
  streamUsage: true,
  replayReasoning: false,
}

export const PromptSection = z.object({ name: z.string().min(1), text: z.string() })
export const ToolSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), Json),
})

export const RepairItem = z.object({
  seq: z.number().int().nonnegative(),
  what: z.string().min(1),
})

/** Data of each event type. Adding a type here adds it to the union below. */
export const eventData = {
  'session/created': z.object({
    projectDir: z.string(),
    model: z.string().optional(),
    /** The configured endpoint (its id in config.json) the model is served by. */
    endpoint: z.string().optional(),
    parent: z.object({ sessionId: SessionId, atSeq: z.number().int().nonnegative() }).optional(),
  }),
  /**
   * This session is a subagent: the `task` call `callId` of session `sessionId` started it
   * (`depth` 1 for a child of a top-level session). `fork`: its history is the parent's up to
   * the last completed turn; `fresh`: its own. Its first own event; a subagent is not a fork.
   */
  'session/spawned': z.object({
    by: z.object({ sessionId: SessionId, callId: CallId }),
    description: z.string().max(500),
    depth: z.number().int().positive(),
    mode: z.enum(['fresh', 'fork']),
  }),
  /**
   * The session was brought in from another tool's session log by `bridle import`: which tool
   * (`source`), the file's name (never its folder), the tool's own id for it, the version that
   * wrote it when the file says, and the folder the file recorded (untrusted: the session's
   * folder is `session/created`'s). What the import could not map is in `notice` events
   * (`IMPORT_UNMAPPED`, `IMPORT_SKIPPED`).
   */
  'session/imported': z.object({
    source: z.enum(['claude-code', 'codex', 'pi', 'deepseek-harness']),
    file: z.string().max(500),
    sourceSessionId: z.string().max(200).optional(),
    sourceVersion: z.string().max(100).optional(),
    recordedProjectDir: z.string().optional(),
  }),
  /**
   * `source`: who named it. `user` (a rename; the default, which older events read as) sticks:
   * `words` (the first words of the first message) and `auto` (the model's short title, asked in
   * the background after the first answered turn) never replace it.
   */
  'session/title': z.object({
    title: z.string().max(500),
    source: z.enum(['user', 'words', 'auto']).default('user'),
  }),
  /**
   * The user switched the session's model: requests from the next turn on go to this endpoint
   * and model (a turn already running keeps the model it started with).
   */
  'session/model': z.object({
    endpointId: z.string().min(1).max(200).optional(),
    model: z.string().min(1).max(500),
  }),
  /**
   * Code mode switched for the session (the app's switch, or `bridle run --code-mode`): from the
   * next turn on the model also gets `run_code` or no longer does (a running turn keeps its tools).
   * The last switch holds; a session without one has code mode off.
   */
  'session/code-mode': z.object({ on: z.boolean() }),
  'inbox/queued': z.object({
    requestId: z.string().min(1).max(200),
    message: z.string(),
    wake: z.boolean(),
    /** Files and images sent with the message (see protocol/attachments.ts). */
    attachments: z.array(Attachment).max(MAX_ATTACHMENTS).optional(),
  }),
  'inbox/claimed': z.object({ requestIds: z.array(z.string().min(1)).min(1) }),
  'turn/start': z.object({}),
  'turn/end': z.object({ reason: TurnEndReason }),
  'step/start': z.object({}),
  'step/end': z.object({ reason: StepEndReason }),
  'user/message': z.object({
    content: z.string(),
    /**
     * `context` marks volatile context (date, git status) the harness adds, not the user's
     * words; `notice`, something the harness tells the model about its own last reply (its
     * calls were cut off at the output limit).
     */
    kind: z.enum(['input', 'context', 'notice']).default('input'),
    /** Files and images sent with the user's words, as the model saw them. */
    attachments: z.array(Attachment).max(MAX_ATTACHMENTS).optional(),
  }),
  'request/header': z.object({
    sections: z.array(PromptSection),
    tools: z.array(ToolSchema),
    reason: z.enum(['initial', 'resume', 'change']),
  }),
  'request/start': z.object({
    provider: z.string().min(1),
    model: z.string().min(1),
    params: z.record(z.string(), Json),
    headerSeq: z.number().int().nonnegative(),
    /**
     * What we counted this request's prompt at, before sending it; the server's own figure comes
     * back as the step's `assistant/message` usage, so the two sit side by side in the log.
     */
    estimate: TokenEstimate.optional(),
    /** How the body was shaped for this server (absent: DEFAULT_WIRE). */
    wire: WireSettings.optional(),
  }),
  'assistant/chunk': z.object({ deltas: z.array(ChunkDelta).min(1) }),
  'assistant/message': z.object({
    blocks: z.array(AssistantBlock),
    usage: Usage.optional(),
    finish: FinishReason,
    interrupted: z.boolean().optional(),
    /**
     * The tool calls were read from the reply's text (the model wrote them as markup, in this
     * format) rather than sent as structured calls by the server.
     */
    textCalls: z.object({ format: z.string().min(1) }).optional(),
  }),
  'tool/call': z.object({
    callId: CallId,
    name: z.string().min(1),
    args: Json,
    /** The MCP server that provides the tool, and the server's own name for it. */
    mcp: z.object({ server: z.string(), tool: z.string() }).optional(),
    /** Present on a call a program made (code mode): the `run_code` call it belongs to. */
    parent: CallLink.optional(),
  }),
  'tool/result': z.discriminatedUnion('ok', [
    z.object({
      callId: CallId,
      ok: z.literal(true),
      output: z.string(),
      outputRef: z.string().optional(),
      /** Facts for the UI, not the model: exit code, duration, paths. */
      metadata: z.record(z.string(), Json).optional(),
      parent: CallLink.optional(),
    }),
    z.object({
      callId: CallId,
      ok: z.literal(false),
      error: ToolError,
      outputRef: z.string().optional(),
      metadata: z.record(z.string(), Json).optional(),
      parent: CallLink.optional(),
    }),
  ]),
  /** Someone is asked whether a call may run: exactly what they were shown (audit). */
  'approval/requested': z.object({
    callId: CallId,
    tool: z.string().min(1),
    description: z.string(),
    approvalKey: z.string().optional(),
    /** Why this call needs more care than usual (a protected path, a destructive command). */
    warnings: z.array(z.string()).optional(),
    /** The standing grants "always allow" could keep for it; absent when none may. */
    grantOptions: z.array(z.string()).optional(),
    parent: CallLink.optional(),
  }),
  /**
   * Every decision on a call, durable before the call is acted on (intent before effect, docs/ARCHITECTURE.md 3.4), whoever
   * made it: the user (after `approval/requested`), or automatically (`by`: the approval mode,
   * a standing rule, what the call would do, a guard, or nobody being there to ask).
   */
  'approval/decided': z.object({
    callId: CallId,
    decision: z.enum(['allow', 'deny', 'cancelled']),
    remember: z.boolean().optional(),
    reason: z.string().optional(),
    /** Absent in logs written before automatic decisions were logged: the user. */
    by: z.enum(['user', 'mode', 'rule', 'assessment', 'guard', 'no-channel']).optional(),
    /** The approval mode in force, or the rule that decided (`bash: npm test *`). */
    detail: z.string().optional(),
    /** The standing grant the user chose with "always allow" (`npm test *`). */
    grant: z.string().optional(),
    parent: CallLink.optional(),
  }),
  /**
   * A command's process started: enough to find it again after a crash and to prove it is the
   * one this installation started: the kernel's start time (`startTicks`), the boot
   * (`/proc/sys/kernel/random/boot_id`) and the host. Crash repair signals a group only with all
   * three matching; a record without them (older logs) is never signalled. `imported`: the
   * record came in with `bridle import`, and is never signalled either.
   */
  'process/started': z.object({
    callId: CallId,
    pid: z.number().int().positive(),
    pgid: z.number().int().positive(),
    startTicks: z.number().int().nonnegative().optional(),
    bootId: z.string().max(100).optional(),
    host: z.string().max(255).optional(),
    imported: z.literal(true).optional(),
    sandboxed: z.boolean(),
  }),
  /**
   * A `task` call started a subagent: the child session that runs it (its lineage is in the
   * store, and its own log opens with `session/spawned`). Logged while the call runs, so the
   * parent's chat and Gantt can follow the child before its answer comes back.
   */
  'subagent/started': z.object({
    callId: CallId,
    sessionId: SessionId,
    description: z.string().max(500),
  }),
  'compaction/checkpoint': z.object({
    fromSeq: z.number().int().nonnegative(),
    toSeq: z.number().int().nonnegative(),
    summary: z.string().min(1),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    model: z.string().optional(),
  }),
  'compaction/undone': z.object({ checkpointSeq: z.number().int().nonnegative() }),
  /**
   * Large tool outputs taken out of the model's view (each shown as a one-line stub naming its
   * outputRef); the outputs stay in the log and in their spill files.
   */
  'compaction/pruned': z.object({
    seqs: z.array(z.number().int().nonnegative()).min(1),
  }),
  'workspace/diff': z.object({
    files: z.array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted', 'renamed']),
        additions: z.number().int().nonnegative(),
        deletions: z.number().int().nonnegative(),
        /**
         * Snapshot hashes (content-addressed, in the data folder) of the file before the turn
         * first touched it and at the turn's end, so the diff can be shown exactly later. Absent
         * when there was no file, or its content is not known (changed unseen by a command, or
         * too large to keep).
         */
        beforeHash: z.string().optional(),
        afterHash: z.string().optional(),
      }),
    ),
    /**
     * The points inside the turn: for each call that changed some of `files` (in the order the
     * calls ended, named by step and call id), those files' content right after it: `hash` (a
     * snapshot), `isAbsent` (no file), or neither (not kept: too large, or the call changed too
     * many files). Absent in logs written before it.
     */
    calls: z
      .array(
        z.object({
          step: z.number().int().positive(),
          callId: CallId,
          files: z.array(
            z.object({
              path: z.string(),
              hash: z.string().optional(),
              isAbsent: z.literal(true).optional(),
            }),
          ),
        }),
      )
      .optional(),
  }),
  /**
   * The project's files were put back to how they were right after event `toSeq` of this
   * session's history (its ancestors' before a fork point included), outside any turn. Logged
   * before the files are touched (intent before effect). Only files some turn of the session's
   * history changed are ever written or removed; `.git/` and paths outside the project never.
   * `written`: files given the content of snapshot `hash`; `removed`: files deleted (they did
   * not exist at that point); `skipped`: files left as they are, each with why (no copy of that
   * content was kept, the path is refused). `drifted`: files changed outside Bridle since the
   * session last saw them, overwritten because the user forced it. `guard`: each written or
   * removed path as it was just before (`hash` absent: no file), for `workspace/restore-undone`.
   */
  'workspace/restored': z.object({
    toSeq: z.number().int().nonnegative(),
    written: z.array(z.object({ path: z.string().min(1), hash: z.string() })),
    removed: z.array(z.string().min(1)),
    skipped: z.array(z.object({ path: z.string().min(1), reason: z.string() })),
    drifted: z.array(z.string().min(1)),
    guard: z.array(z.object({ path: z.string().min(1), hash: z.string().optional() })),
  }),
  /**
   * The restore logged at `restoredSeq` was undone: its guard's files were put back (`written`
   * with their snapshot `hash`, `removed` where there was no file), outside any turn; logged
   * before the files are touched. `cause`: `user` asked for it, or `failed` (the restore could
   * not finish writing and put back what it had changed).
   */
  'workspace/restore-undone': z.object({
    restoredSeq: z.number().int().nonnegative(),
    written: z.array(z.object({ path: z.string().min(1), hash: z.string() })),
    removed: z.array(z.string().min(1)),
    skipped: z.array(z.object({ path: z.string().min(1), reason: z.string() })),
    drifted: z.array(z.string().min(1)),
    cause: z.enum(['user', 'failed']),
  }),
  'deliverable/present': z.object({
    paths: z.array(z.string()).min(1),
    note: z.string().optional(),
  }),
  'recovery/repaired': z.object({
    cause: z.enum(['crash', 'fork']),
    items: z.array(RepairItem).min(1),
  }),
  error: z.object({
    scope: z.enum(['step', 'turn', 'session', 'compaction', 'store']),
    code: z.string().min(1),
    message: z.string(),
  }),
  /**
   * Something the user should know that is not a failure of the step (a reply cut at the
   * output limit): shown in the chat and by the CLI, not sent to the model.
   */
  notice: z.object({
    level: z.enum(['info', 'warning']),
    code: z.string().min(1),
    message: z.string(),
  }),
} as const

export type EventType = keyof typeof eventData
export const EVENT_TYPES = Object.keys(eventData) as EventType[]
export type EventDataInput<T extends EventType> = z.input<(typeof eventData)[T]>
export type EventData<T extends EventType> = z.output<(typeof eventData)[T]>

/** The schema version each type is written at; readers accept exactly these. */
export const EVENT_VERSION = 1

const envelope = <T extends EventType>(type: T) =>
  z.object({
    type: z.literal(type),
    v: z.literal(EVENT_VERSION),
    seq: z.number().int().nonnegative(),
    /** 0 outside a turn; turns count from 1 per session. */
    turn: z.number().int().nonnegative(),
    /** 0 outside a step; steps count from 1 per turn. */
    step: z.number().int().nonnegative(),
    at: z.number().int().nonnegative(),
    data: eventData[type],
  })

const envelopes = EVENT_TYPES.map((type) => envelope(type))

export const LogEvent = z.discriminatedUnion(
  'type',
  envelopes as unknown as [
    ReturnType<typeof envelope<EventType>>,
    ...ReturnType<typeof envelope<EventType>>[],
  ],
)

/** One event as stored and as handed to listeners: deep-frozen. */
export type LogEventOf<T extends EventType> = {
  readonly type: T
  readonly v: typeof EVENT_VERSION
  readonly seq: number
  readonly turn: number
  readonly step: number
  readonly at: number
  readonly data: DeepReadonly<EventData<T>>
}
export type LogEvent = { [T in EventType]: LogEventOf<T> }[EventType]

/** What every event carries around its data, as the log stores it (a `LogEvent` or a store row). */
export interface EventHead {
  readonly seq: number
  readonly type: string
  readonly v: number
  readonly turn: number
  readonly step: number
  readonly at: number
}

/** `E`'s envelope and data alone; for a `LogEvent`, the same union of event types. */
export type EventEnvelope<E extends EventHead & { readonly data: unknown }> = E extends unknown
  ? Pick<E, 'seq' | 'type' | 'v' | 'turn' | 'step' | 'at' | 'data'>
  : never

/**
 * An event as it leaves the core, the one place that shape is built: the bridge's `EventDto`
 * (`session/event`, `session/events`) and a line of `bridle export`. Exactly the envelope and
 * `data`, in one order (seq, type, v, turn, step, at, data), so every copy serialises alike;
 * anything else on `event` (a row's `sessionId`) stays behind. Picks, never checks or copies
 * `data`: validating is the reader's business (`rowToEvent`, the bridge's result check).
 */
export function eventEnvelope<E extends EventHead & { readonly data: unknown }>(
  event: E,
): EventEnvelope<E> {
  const { seq, type, v, turn, step, at, data } = event
  // The picked fields of `E` itself; TypeScript cannot follow a pick through a union's members.
  return { seq, type, v, turn, step, at, data } as EventEnvelope<E>
}

export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T

/** Events the model sees; everything else is for the harness, the UI and recovery. */
export const MODEL_VISIBLE: ReadonlySet<EventType> = new Set<EventType>([
  'user/message',
  'assistant/message',
  'tool/result',
  'compaction/checkpoint',
])

export const isEventType = (type: string): type is EventType => Object.hasOwn(eventData, type)

/**
 * Whether an event is one of the "messages" a session's count counts: the user's own words and
 * the model's answers, not the context the harness adds (date, git status) before a turn.
 * `data` may be a stored row's raw payload, where an old `user/message` has no `kind`.
 */
export function countsAsMessage(type: string, data: unknown): boolean {
  if (type === 'assistant/message') return true
  if (type !== 'user/message') return false
  const kind =
    typeof data === 'object' && data !== null ? (data as { kind?: unknown }).kind : undefined
  return kind === undefined || kind === 'input'
}
