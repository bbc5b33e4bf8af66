/**
 * The one contract of the bridge between the renderer and the main process. Everything that
 * crosses it is named here with a zod schema, and both sides validate: the main side parses every
 * call's params before the Host sees them, the renderer parses every result and notification.
 *
 * Wire names are `resource/verb`. Results travel as data, `{ ok: true, value }` or
 * `{ ok: false, error: { code, message } }`, because Electron's `invoke` keeps only an error's
 * message. This module is pure zod: it is imported by main, preload and renderer alike.
 */
import { z } from 'zod'
import { AttachmentInput, MAX_ATTACHMENTS } from './attachments.js'
import { LogEvent } from './events.js'
import type { EventType, LogEvent as LogEventValue, LogEventOf } from './events.js'
import { McpCatalogView, McpListView } from './mcp.js'
import { ProbeReport } from './probe-report.js'
import { Config } from './settings.js'

export const ErrorCode = z.enum([
  /** The method name is not in the contract. */
  'UNKNOWN_METHOD',
  /** The params failed the method's schema; the Host was not called. */
  'INVALID_PARAMS',
  /** The caller is not our window or lacks the bridge token. */
  'FORBIDDEN',
  /** The payload is larger than the bridge accepts. */
  'PAYLOAD_TOO_LARGE',
  /** The Host returned a value that failed the method's result schema (a bug in main). */
  'INVALID_RESULT',
  /** The bridge connection is closed or not yet open. */
  'DISCONNECTED',
  /** The session, output, endpoint or checkpoint named does not exist. */
  'NOT_FOUND',
  /** A path is outside the project, not a folder, or not readable. */
  'INVALID_PATH',
  /** Settings failed validation; `fields` says which and why. Nothing was written. */
  'INVALID_SETTINGS',
  /** The session is busy (a turn runs) or locked by another process. */
  'CONFLICT',
  /** The action needs something this transport cannot do (a folder picker in serve mode). */
  'UNSUPPORTED',
  /** An attachment was refused (too large, binary, too many, or images for a model without vision). */
  'ATTACHMENT_REFUSED',
  /** A model endpoint failed; the message says what and what to do. */
  'ENDPOINT_FAILED',
  /** A plugin named in config.json could not load; the message names the file and the fix. */
  'PLUGIN_FAILED',
  /** An MCP server could not do what was asked (start, a prompt); the message names it and why. */
  'MCP_FAILED',
  /** A file to import is in no format Bridle reads (or empty, or compressed); nothing was written. */
  'IMPORT_REFUSED',
  /** Anything else the Host threw; the message says what. */
  'INTERNAL',
])
export type ErrorCode = z.infer<typeof ErrorCode>

/** One field's validation failure: `path` is dotted (`endpoints.local.baseUrl`). */
export const FieldError = z.object({ path: z.string(), message: z.string() })
export type FieldError = z.infer<typeof FieldError>

export const BridgeError = z.object({
  code: ErrorCode,
  message: z.string(),
  /** With INVALID_SETTINGS and INVALID_PARAMS: each failing field, for errors next to the input. */
  fields: z.array(FieldError).optional(),
})
export type BridgeError = z.infer<typeof BridgeError>

export type Result<T> = { ok: true; value: T } | { ok: false; error: BridgeError }

export const resultSchema = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), value }),
    z.object({ ok: z.literal(false), error: BridgeError }),
  ])

export const AppInfoResult = z.object({
  name: z.literal('Bridle'),
  version: z.string().min(1),
  /** The user data folder (BRIDLE_HOME) where the database and spilled outputs live. */
  dataDir: z.string().min(1),
  /** The event log's SQLite file inside the data folder. */
  databasePath: z.string().min(1),
  platform: z.string().min(1),
  arch: z.string().min(1),
  /** Runtime versions of the main process, e.g. `{ node: '24.11.0', electron: '45.5.0' }`. */
  versions: z.record(z.string(), z.string()),
  /** How the caller is connected: Electron IPC, the loopback WebSocket, or in-process (the CLI). */
  transport: z.enum(['ipc', 'websocket', 'in-process']),
})
export type AppInfoResult = z.infer<typeof AppInfoResult>

// ---- Shared shapes ------------------------------------------------------------------------

const Id = z.string().min(1).max(200)
const Seq = z.number().int().nonnegative()
const Millis = z.number().int().nonnegative()
const Limit = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback)

export const Project = z.object({
  /** The folder's real path. */
  path: z.string().min(1),
  name: z.string(),
  openedAt: Millis,
})
export type Project = z.infer<typeof Project>

export const SessionSummary = z.object({
  id: Id,
  parentId: Id.nullable(),
  /** The fork point: the child's history is the parent's events before this seq. */
  forkSeq: Seq.nullable(),
  title: z.string().nullable(),
  projectDir: z.string(),
  model: z.string().nullable(),
  createdAt: Millis,
  updatedAt: Millis,
  /** Model-visible user and assistant messages (own and inherited). */
  messageCount: z.number().int().nonnegative(),
  /** Events in the whole history: the next seq. */
  eventCount: z.number().int().nonnegative(),
  deletedAt: Millis.nullable(),
  /** A turn is running now in this app. */
  isRunning: z.boolean(),
  /**
   * A subagent: the session and `task` call that started it (its history is its own, or a
   * fork's when `parentId` is set too). Null for a session the user started.
   */
  spawnedBy: z.object({ sessionId: Id, callId: Id }).nullable().default(null),
})
export type SessionSummary = z.infer<typeof SessionSummary>

/**
 * An event of the log as it crosses the bridge: the log's own union (events.ts), so a reader that
 * checks `event.type` reads `event.data` with its type, and nothing is decoded again by hand.
 *
 * Validated in full, envelope and payload, on both sides (main checks every result, the renderer
 * every result and notification). That is cheap: the union picks one branch by `type`, and a page
 * of 5,000 events parses in about the time the old envelope with an untyped record took (~25 ms
 * jitless, measured). In return the payload is known, and an older payload of the same version is
 * upgraded on the way: `session/events` reads the stored JSON as written, and the parse fills the
 * defaults a later schema added (a `user/message` without `kind` arrives as `kind: 'input'`).
 * The log has one version (`EVENT_VERSION`); a row of another, or of an unknown type, fails here
 * as it fails in the core (`rowToEvent`), named rather than shown half-read.
 */
export const EventDto = LogEvent as unknown as z.ZodType<LogEventValue>
export type EventDto = LogEventValue
/** The event of one type as it crosses the bridge; of several, the union of each (distributive). */
export type EventDtoOf<T extends EventType> = T extends EventType ? LogEventOf<T> : never

export const ApprovalRequest = z.object({
  sessionId: Id,
  /**
   * The call's id is unique only within its step: many servers number calls per response
   * (`call_0` in every reply). The call is `turn`, `step` and `callId` together.
   */
  callId: Id,
  turn: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  tool: z.string(),
  /** What will happen, in words (the command, the file and the change). */
  description: z.string(),
  /** The arguments as the model sent them, parsed. */
  args: z.unknown(),
  /** The rule "always" would remember by default (`npm test *`); absent when none may. */
  approvalKey: z.string().optional(),
  /** Why this call needs more care than usual, in plain words (a protected path, a deletion). */
  warnings: z.array(z.string()).optional(),
  /**
   * Every grant "always" may keep, the suggested one first (`npm test *`, then the exact
   * command); one pattern per line when the command runs several programs.
   */
  grantOptions: z.array(z.string()).optional(),
  /**
   * Asked inside a subagent: the session and `task` call that started it, and its description.
   * `sessionId` is the subagent's own (answer there); the parent's view shows the question too.
   */
  subagent: z.object({ sessionId: Id, callId: Id, description: z.string() }).optional(),
})
export type ApprovalRequest = z.infer<typeof ApprovalRequest>

/**
 * What `workspace/restore` and `workspace/undoRestore` did. `restored`: the event logged (`seq`)
 * and the files written, removed and skipped (each with why), and those changed outside Bridle
 * that `force` overwrote. `drifted`: files (project-relative) changed outside Bridle since the
 * session last saw them; nothing was touched or logged, and `force` goes ahead. `planned` (a
 * `dryRun`): what a restore would write, remove and skip, and which files have drifted; nothing
 * was touched or logged.
 */
export const RestoreOutcome = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('restored'),
    seq: Seq,
    written: z.array(z.string()),
    removed: z.array(z.string()),
    skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
    drifted: z.array(z.string()),
  }),
  z.object({ status: z.literal('drifted'), drifted: z.array(z.string()).min(1) }),
  z.object({
    status: z.literal('planned'),
    written: z.array(z.string()),
    removed: z.array(z.string()),
    skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
    drifted: z.array(z.string()),
  }),
])
export type RestoreOutcome = z.infer<typeof RestoreOutcome>

export const CompactionOutcome = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('compacted'),
    checkpointSeq: Seq,
    fromSeq: Seq,
    toSeq: Seq,
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
  }),
  z.object({
    status: z.enum(['nothing-to-compact', 'failed', 'cancelled']),
    message: z.string(),
  }),
])
export type CompactionOutcome = z.infer<typeof CompactionOutcome>

/** An endpoint as the renderer sees it: never the key, only whether there is one and where. */
export const EndpointInfo = z.object({
  id: Id,
  baseUrl: z.string(),
  isDefault: z.boolean(),
  /** `stored`: in the credential store; `env`: from the named variable (set or not); `none`. */
  key: z.enum(['none', 'stored', 'env', 'env-missing']),
  apiKeyEnv: z.string().optional(),
})
export type EndpointInfo = z.infer<typeof EndpointInfo>

export const ModelInfo = z.object({
  id: z.string().min(1),
  /** The window in tokens, when the server says or config sets it. */
  contextWindow: z.number().int().positive().optional(),
  /**
   * `server`: the window the server runs; `default`: a server default assumed (Ollama);
   * `advertised`: a trained length or maximum the server may not run; `configured`: config.json.
   */
  contextSource: z.enum(['server', 'default', 'advertised', 'configured']).optional(),
  /** What the model was trained for, when it differs from the window. */
  trainedContext: z.number().int().positive().optional(),
  /** Whether the model advertises tool calling; absent when unknown. */
  supportsTools: z.boolean().optional(),
  /** The last capability probe of this model on this endpoint (`model/probe`), if one ran. */
  probe: ProbeReport.optional(),
})
export type ModelInfo = z.infer<typeof ModelInfo>

export const DiscoveredServer = z.object({
  /** `ollama`, `lm-studio`, `llama.cpp`, `vllm`, or `openai-compatible`. */
  kind: z.string().min(1),
  baseUrl: z.string().min(1),
  models: z.array(ModelInfo),
})
export type DiscoveredServer = z.infer<typeof DiscoveredServer>

/**
 * How a session talks to its model now: the profile Bridle picked (and what the server taught
 * it since), the window it plans for and where that comes from, and the last probe's report.
 */
export const ModelProfileView = z.object({
  model: z.string(),
  endpointId: z.string(),
  /** `ollama`, `llama.cpp`, `lm-studio`, `vllm`, `deepseek`, `openai` or `unknown`. */
  serverKind: z.string(),
  serverVersion: z.string().optional(),
  api: z.enum(['openai', 'ollama']),
  toolCalls: z.enum(['native', 'native-nonstream', 'text']),
  streamUsage: z.boolean(),
  replayReasoning: z.boolean(),
  contextWindow: z.number().int().positive().optional(),
  /** `configured`, `server`, `default` (assumed), `advertised`, `probed` or `learned` (after a cut). */
  windowSource: z.string().optional(),
  probe: ProbeReport.optional(),
})
export type ModelProfileView = z.infer<typeof ModelProfileView>

/** The settings the renderer may read and change: config.json, defaults filled in. */
export const SettingsView = z.object({
  config: Config,
  endpoints: z.array(EndpointInfo),
  /** Where config.json lives, to show the user. */
  path: z.string(),
})
export type SettingsView = z.infer<typeof SettingsView>

/** What the model was sent for one request, rebuilt from the log, with tokens per part. */
export const RequestView = z.object({
  startSeq: Seq,
  model: z.string(),
  params: z.record(z.string(), z.unknown()),
  messages: z.array(
    z.object({
      role: z.enum(['system', 'user', 'assistant', 'tool']),
      /** Where the message comes from: its event, or the checkpoint that replaced a range. */
      seq: Seq,
      /** `input`, `context`, `summary`, `pruned` ...: what kind of message this is. */
      kind: z.string().optional(),
      content: z.string(),
      toolCalls: z
        .array(z.object({ callId: z.string(), name: z.string(), args: z.string() }))
        .optional(),
      callId: z.string().optional(),
      tokens: z.number().int().nonnegative(),
    }),
  ),
  tools: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.unknown() })),
  tokens: z.object({
    system: z.number().int().nonnegative(),
    tools: z.number().int().nonnegative(),
    history: z.number().int().nonnegative(),
    checkpoint: z.number().int().nonnegative(),
    toolOutputs: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    /** `o200k_base`, `cl100k_base` or `estimate`. */
    method: z.string(),
  }),
  /** The server's own count, from the step's usage, when it reported one. */
  reportedInputTokens: z.number().int().nonnegative().optional(),
})
export type RequestView = z.infer<typeof RequestView>

export const FileChange = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /** A unified diff against the turn's snapshot; absent for binary or oversized files. */
  patch: z.string().optional(),
  isBinary: z.boolean().optional(),
})
export type FileChange = z.infer<typeof FileChange>

// ---- Import from other harnesses (issue 20) -------------------------------------------------

/** The tools whose session files `import/*` reads, besides Bridle's own export. */
export const ImportTool = z.enum(['claude-code', 'codex', 'pi', 'deepseek-harness'])
export type ImportTool = z.infer<typeof ImportTool>

/** One session file found in a tool's default folder by `import/scan`. */
export const ScannedImport = z.object({
  /** The file's absolute path: what `import/inspect` and `import/run` take. */
  path: z.string().min(1),
  /** The same path for people, the home folder written `~`. */
  displayPath: z.string().min(1),
  tool: ImportTool,
  /** The tool's name for people ("Claude Code"). */
  label: z.string().min(1),
  modifiedAt: Millis,
  bytes: z.number().int().nonnegative(),
  /** The first prompt (or the tool's title), cut to one short line. */
  title: z.string().optional(),
  /** The folder the file recorded, as it says: untrusted, never used without the user's choice. */
  recordedProjectDir: z.string().optional(),
})
export type ScannedImport = z.infer<typeof ScannedImport>

// ---- Methods ------------------------------------------------------------------------------

interface MethodSpec {
  readonly params: z.ZodType
  readonly result: z.ZodType
  readonly description: string
}

export const methods = {
  'app/info': {
    description: 'Version, data folder and platform of the running Bridle.',
    params: z.object({}).strict(),
    result: AppInfoResult,
  },

  'project/open': {
    description:
      'Opens a project folder: the given path, or (in the app, without a path) a folder picker. `project: null` when the picker was cancelled. A folder that is or holds the home folder is not opened unless `allowHome`: `homeWarning` says why, for the user to confirm.',
    params: z
      .object({ path: z.string().min(1).max(4096).optional(), allowHome: z.boolean().optional() })
      .strict(),
    result: z.object({
      project: Project.nullable(),
      /** The folder holds the home folder: not opened; open `path` with `allowHome` if the user agrees. */
      homeWarning: z.object({ path: z.string(), message: z.string() }).optional(),
    }),
  },
  'project/recent': {
    description: 'Recently opened project folders, newest first (missing folders left out).',
    params: z.object({ limit: Limit(50, 10) }).strict(),
    result: z.object({ projects: z.array(Project) }),
  },

  'session/list': {
    description: 'Sessions by latest activity, cursor-paged; optionally of one project.',
    params: z
      .object({
        cursor: z.string().max(1000).nullable().optional(),
        limit: Limit(200, 50),
        projectDir: z.string().min(1).optional(),
        includeDeleted: z.boolean().default(false),
      })
      .strict(),
    result: z.object({ items: z.array(SessionSummary), nextCursor: z.string().nullable() }),
  },
  'session/create': {
    description: 'A new, empty session in a project folder, with an endpoint and model.',
    params: z
      .object({
        projectDir: z.string().min(1),
        title: z.string().max(200).optional(),
        endpointId: Id.optional(),
        model: z.string().min(1).optional(),
      })
      .strict(),
    result: SessionSummary,
  },
  'session/get': {
    description: 'One session, with what is pending in it now.',
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({
      session: SessionSummary,
      pendingApprovals: z.array(ApprovalRequest),
      /** The model's window in tokens, when known; with the last request's estimate, a meter. */
      contextWindow: z.number().int().positive().optional(),
      /** How the session talks to its model, once its first turn resolved it. */
      profile: ModelProfileView.optional(),
      /**
       * Whether code mode is on: the last `session/code-mode` switch of the whole history (the
       * app's chat may hold only the history's tail).
       */
      codeMode: z.boolean(),
    }),
  },
  'session/rename': {
    description: 'Sets the title (an empty title clears it).',
    params: z.object({ sessionId: Id, title: z.string().max(200) }).strict(),
    result: SessionSummary,
  },
  'session/setModel': {
    description:
      "Switches the session's model, logged as `session/model`: the next turn's requests use it (a running turn keeps its model).",
    params: z
      .object({
        sessionId: Id,
        endpointId: Id.optional(),
        model: z.string().min(1).max(500),
      })
      .strict(),
    result: SessionSummary,
  },
  'session/setCodeMode': {
    description:
      'Turns code mode on or off for the session, logged as `session/code-mode`: from the next turn on the model also gets `run_code` (a running turn keeps its tools).',
    params: z.object({ sessionId: Id, on: z.boolean() }).strict(),
    result: z.object({ on: z.boolean() }),
  },
  'session/delete': {
    description: 'Moves a session (and not its forks) to the trash; `session/restore` undoes it.',
    params: z.object({ sessionId: Id }).strict(),
    result: SessionSummary,
  },
  'session/restore': {
    description: 'Takes a session out of the trash.',
    params: z.object({ sessionId: Id }).strict(),
    result: SessionSummary,
  },
  'session/tree': {
    description:
      'Every session with its parent and fork point, for the tree (optionally one project).',
    params: z
      .object({
        projectDir: z.string().min(1).optional(),
        includeDeleted: z.boolean().default(false),
      })
      .strict(),
    result: z.object({ sessions: z.array(SessionSummary) }),
  },
  'session/fork': {
    description:
      "A new session whose history is the parent's events before `atSeq` (a turn boundary or any event; an open turn is closed in the fork).",
    params: z.object({ sessionId: Id, atSeq: Seq, title: z.string().max(200).optional() }).strict(),
    result: SessionSummary,
  },
  'session/events': {
    description:
      'A slice of the history by seq, oldest first, with filters. `nextSeq` continues the page.',
    params: z
      .object({
        sessionId: Id,
        fromSeq: Seq.default(0),
        /** Exclusive. */
        toSeq: Seq.optional(),
        types: z.array(z.string().min(1)).max(50).optional(),
        turn: z.number().int().nonnegative().optional(),
        step: z.number().int().nonnegative().optional(),
        limit: Limit(5000, 1000),
        /**
         * Read from the end instead: the last `limit` matching events below `toSeq` (or the end),
         * still oldest first, so a long chat opens on its latest messages in one call.
         */
        tail: z.boolean().optional(),
      })
      .strict(),
    result: z.object({
      events: z.array(EventDto),
      /** Where the next page starts, or null when this one reached `toSeq` or the end. */
      nextSeq: Seq.nullable(),
      /** The history's length now. */
      length: z.number().int().nonnegative(),
      /**
       * A tail read only: every matching event from this seq up to `toSeq` (or the end) is in
       * `events`; 0 when the page reaches back to the history's start. The next older page is
       * the tail below it.
       */
      coveredFrom: Seq.optional(),
    }),
  },
  'session/search': {
    description: 'Full-text search over user, assistant and tool text (one session or all).',
    params: z
      .object({
        query: z.string().min(1).max(500),
        sessionId: Id.optional(),
        limit: Limit(200, 50),
      })
      .strict(),
    result: z.object({
      hits: z.array(
        z.object({
          sessionId: Id,
          title: z.string().nullable(),
          seq: Seq,
          type: z.string(),
          /** The matching text with the hits between « and ». */
          snippet: z.string(),
        }),
      ),
    }),
  },
  'session/request': {
    description:
      'Exactly what the model was sent for the `request/start` at `startSeq`, derived from the log, with token counts per part.',
    params: z.object({ sessionId: Id, startSeq: Seq }).strict(),
    result: RequestView,
  },

  'turn/send': {
    description:
      'Queues user input: starts a turn, or steers the running one at its next step. A repeated requestId is accepted once.',
    params: z
      .object({
        sessionId: Id,
        requestId: Id,
        text: z.string().min(1).max(200_000),
        /** Files (read by the host now) and images to send with the text. */
        attachments: z.array(AttachmentInput).max(MAX_ATTACHMENTS).optional(),
      })
      .strict(),
    result: z.object({ accepted: z.boolean(), reason: z.string().optional() }),
  },
  'turn/cancel': {
    description: 'Stops the running turn: the stream ends, running tools are cancelled.',
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({ wasRunning: z.boolean() }),
  },
  'approval/respond': {
    description:
      "Answers a pending approval. `remember` keeps an allow rule for this project: `grant` (one of the request's grantOptions), or the request's approvalKey.",
    params: z
      .object({
        sessionId: Id,
        callId: Id,
        decision: z.enum(['allow', 'deny']),
        remember: z.boolean().default(false),
        grant: z.string().max(10_000).optional(),
        reason: z.string().max(2000).optional(),
      })
      .strict(),
    result: z.object({ accepted: z.boolean() }),
  },

  'workspace/restore': {
    description:
      "Puts the project's files back to how they were right after event `toSeq` of the session's history (only files its turns changed; .git never). Stops with `drifted` when files changed outside Bridle, unless `force`; `dryRun` only says what it would do. CONFLICT while a turn or compaction runs; NOT_FOUND for a seq the session does not have.",
    params: z
      .object({
        sessionId: Id,
        toSeq: Seq,
        force: z.boolean().optional(),
        /** Only say what would be done (`planned`). */
        dryRun: z.boolean().optional(),
      })
      .strict(),
    result: RestoreOutcome,
  },
  'workspace/undoRestore': {
    description:
      "Puts the files back to how they were before the session's last restore (the last one only, and only while no turn ran since: CONFLICT). Stops with `drifted` like `workspace/restore`; NOT_FOUND when there is no restore to undo.",
    params: z
      .object({ sessionId: Id, force: z.boolean().optional(), dryRun: z.boolean().optional() })
      .strict(),
    result: RestoreOutcome,
  },
  'compaction/run': {
    description: 'Summarises the early history now (a checkpoint), optionally with a focus.',
    params: z.object({ sessionId: Id, focus: z.string().max(2000).optional() }).strict(),
    result: CompactionOutcome,
  },
  'compaction/undo': {
    description: "Puts a checkpoint's originals back into the model's view.",
    params: z.object({ sessionId: Id, checkpointSeq: Seq }).strict(),
    result: z.object({ undoneSeq: Seq }),
  },

  'settings/get': {
    description: 'The settings (config.json with defaults filled in) and the endpoints.',
    params: z.object({}).strict(),
    result: SettingsView,
  },
  'settings/update': {
    description:
      'Replaces the settings with `config` after validating it; a bad field fails with INVALID_SETTINGS and its path, and nothing is written.',
    params: z.object({ config: z.record(z.string(), z.unknown()) }).strict(),
    result: SettingsView,
  },

  'mcp/list': {
    description:
      "The MCP servers a session in `projectDir` would use (the user's and the project's .mcp.json), with their state, tools and stderr.",
    params: z.object({ projectDir: z.string().min(1).max(4096) }).strict(),
    result: McpListView,
  },
  'mcp/trust': {
    description:
      "Trusts (or stops trusting) the project's .mcp.json as it is now: trusted, its servers start when a session needs them.",
    params: z
      .object({
        projectDir: z.string().min(1).max(4096),
        trust: z.boolean(),
        /** The `projectFile.fingerprint` the user saw: trust is refused if it is no longer so. */
        fingerprint: z.string().max(128).optional(),
      })
      .strict(),
    result: McpListView,
  },
  'mcp/setEnabled': {
    description: "Turns one of the user's MCP servers (config.json) on or off; off, it is stopped.",
    params: z
      .object({
        projectDir: z.string().min(1).max(4096),
        name: z.string().min(1),
        enabled: z.boolean(),
      })
      .strict(),
    result: McpListView,
  },
  'mcp/catalog': {
    description:
      "The prompts (slash commands) and resources (attachments) of the project's MCP servers, starting those that may run.",
    params: z.object({ projectDir: z.string().min(1).max(4096) }).strict(),
    result: McpCatalogView,
  },
  'mcp/prompt': {
    description: "An MCP server's prompt filled in with its arguments, as the text of a message.",
    params: z
      .object({
        projectDir: z.string().min(1).max(4096),
        server: z.string().min(1),
        name: z.string().min(1),
        arguments: z.record(z.string(), z.string().max(100_000)).default({}),
      })
      .strict(),
    result: z.object({ text: z.string() }),
  },
  'mcp/restart': {
    description: 'Stops an MCP server and starts it again now (a failed one without waiting).',
    params: z.object({ projectDir: z.string().min(1).max(4096), name: z.string().min(1) }).strict(),
    result: McpListView,
  },

  'endpoint/list': {
    description: 'The configured endpoints (never their keys).',
    params: z.object({}).strict(),
    result: z.object({ endpoints: z.array(EndpointInfo) }),
  },
  'endpoint/test': {
    description:
      'Checks that an endpoint answers and lists its models; the message says what failed and what to do.',
    params: z
      .object({
        endpointId: Id.optional(),
        /** Test an endpoint not saved yet. */
        baseUrl: z.url({ protocol: /^https?$/ }).optional(),
        /** With `baseUrl`: the key to send with that test (used for it only, never stored). */
        apiKey: z.string().min(1).max(4096).optional(),
      })
      .strict(),
    result: z.object({
      ok: z.boolean(),
      latencyMs: z.number().nonnegative(),
      models: z.array(ModelInfo),
      message: z.string(),
    }),
  },
  'endpoint/discover': {
    description: 'Local model servers on their usual ports (Ollama, LM Studio, llama.cpp, vLLM).',
    params: z.object({}).strict(),
    result: z.object({ servers: z.array(DiscoveredServer) }),
  },
  'model/list': {
    description: 'The models of an endpoint, with context length and tool support when known.',
    params: z.object({ endpointId: Id }).strict(),
    result: z.object({ models: z.array(ModelInfo) }),
  },
  'model/probe': {
    description:
      'Tests what a model on an endpoint can do (tool calls, reasoning, stream_options, the context it honours) with a few real requests; the report is kept, and sessions talk to the model accordingly. A slow local server may take minutes.',
    params: z
      .object({
        endpointId: Id,
        model: z.string().min(1).max(500),
        /** Size of the long-prompt test, in tokens (default 6,000). */
        contextTokens: z.number().int().min(1000).max(262_144).optional(),
      })
      .strict(),
    result: z.object({ report: ProbeReport }),
  },
  'credential/set': {
    description:
      "Stores an endpoint's API key (OS keychain in the app, a 0600 file otherwise). Never returned.",
    params: z.object({ endpointId: Id, value: z.string().min(1).max(10_000) }).strict(),
    result: z.object({ endpointId: Id, stored: z.literal(true) }),
  },
  'credential/delete': {
    description: "Forgets an endpoint's stored API key.",
    params: z.object({ endpointId: Id }).strict(),
    result: z.object({ endpointId: Id, deleted: z.boolean() }),
  },

  'output/read': {
    description: 'A range of a full tool output kept under the data folder (by its outputRef).',
    params: z
      .object({
        outputRef: z.string().min(1).max(500),
        offset: z.number().int().nonnegative().default(0),
        length: z
          .number()
          .int()
          .min(1)
          .max(1024 * 1024)
          .default(256 * 1024),
      })
      .strict(),
    result: z.object({
      text: z.string(),
      offset: z.number().int().nonnegative(),
      totalBytes: z.number().int().nonnegative(),
      /** Where the next range starts, or null at the end. */
      nextOffset: z.number().int().nonnegative().nullable(),
    }),
  },
  'workspace/diff': {
    description: 'The changes a turn made to the project, with a diff per file from its snapshot.',
    params: z.object({ sessionId: Id, turn: z.number().int().positive() }).strict(),
    result: z.object({ turn: z.number().int().positive(), files: z.array(FileChange) }),
  },
  'import/scan': {
    description:
      'The session files of Claude Code, Codex CLI, pi and DeepSeek Harness in their default folders under the home folder, newest first, and the folders looked in.',
    params: z.object({}).strict(),
    result: z.object({
      sessions: z.array(ScannedImport),
      /** Where each tool keeps its sessions (`~/...`), also when nothing was found there. */
      folders: z.array(z.object({ tool: ImportTool, label: z.string(), folder: z.string() })),
    }),
  },
  'import/inspect': {
    description:
      'Reads a file to import without writing anything: its format and the project folder it recorded, and whether that folder exists here. A file in no known format is IMPORT_REFUSED.',
    params: z.object({ path: z.string().min(1).max(4096) }).strict(),
    result: z.object({
      /** The file's real path. */
      path: z.string().min(1),
      displayPath: z.string().min(1),
      format: z.union([z.literal('bridle'), ImportTool]),
      label: z.string().min(1),
      recordedProjectDir: z.string().optional(),
      /** The recorded folder is an absolute path to a folder that exists here. */
      recordedProjectDirExists: z.boolean(),
    }),
  },
  'import/run': {
    description:
      "Imports a file as a new session (pi's other branches as its forks) in the project folder the user chose; nothing is written for a file in no known format (IMPORT_REFUSED).",
    params: z
      .object({
        path: z.string().min(1).max(4096),
        /** Absolute (or `~/...`), an existing folder; never defaulted to the folder the file recorded. */
        projectDir: z.string().min(1).max(4096),
      })
      .strict(),
    result: z.object({
      session: SessionSummary,
      /** The forks made for the source's other branches (pi), oldest branch first. */
      forkIds: z.array(Id),
      label: z.string().min(1),
    }),
  },
  'session/export': {
    description:
      "A session's whole history (forks flattened) as a transcript for people: one self-contained HTML page or GitHub-flavoured Markdown, tool calls folded, diffs shown, secrets redacted (best-effort).",
    params: z.object({ sessionId: Id, format: z.enum(['html', 'md']) }).strict(),
    /** `fileName`: a suggested name for saving it (the title's words, the extension). */
    result: z.object({ text: z.string(), fileName: z.string().min(1) }),
  },
  'project/files-exist': {
    description:
      "Whether each path (relative to the session's project folder, or absolute) is a file or folder there now (what present accepts). A path outside the folder, also through a symlink, is reported as not there.",
    params: z
      .object({
        sessionId: Id,
        paths: z.array(z.string().min(1).max(4096)).min(1).max(200),
      })
      .strict(),
    /** One answer per path, in order. */
    result: z.object({ exists: z.array(z.boolean()) }),
  },
  'project/files': {
    description:
      "The project files for `@` completion (the session's project, or before a session exists the project folder open in the sidebar): paths relative to the folder, sorted, without .git, node_modules, ignored paths or anything a symlink leads out of the folder to. Capped in count and time (`isComplete` false when cut short).",
    params: z.union([
      z.object({ sessionId: Id }).strict(),
      z.object({ projectDir: z.string().min(1).max(4096) }).strict(),
    ]),
    result: z.object({ paths: z.array(z.string()), isComplete: z.boolean() }),
  },
} as const satisfies Record<string, MethodSpec>

export type Methods = typeof methods
export type MethodName = keyof Methods
export type ParamsOf<M extends MethodName> = z.input<Methods[M]['params']>
export type ResultOf<M extends MethodName> = z.output<Methods[M]['result']>

/**
 * Event types forwarded as `session/event`. Chunks are not (the live text comes as
 * `stream/delta`); anything not listed here never leaves the main process as a notification.
 */
export const FORWARDED_EVENT_TYPES = [
  'session/created',
  'session/title',
  'session/model',
  'session/code-mode',
  'inbox/queued',
  'inbox/claimed',
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'user/message',
  'request/header',
  'request/start',
  'assistant/message',
  'tool/call',
  'tool/result',
  'process/started',
  'subagent/started',
  'session/spawned',
  'session/imported',
  'approval/requested',
  'approval/decided',
  'compaction/checkpoint',
  'compaction/pruned',
  'compaction/undone',
  'workspace/diff',
  'workspace/restored',
  'workspace/restore-undone',
  'deliverable/present',
  'recovery/repaired',
  'error',
  'notice',
] as const satisfies readonly EventType[]
export const isForwardedEventType = (type: string): boolean =>
  (FORWARDED_EVENT_TYPES as readonly string[]).includes(type)

export const notifications = {
  /** Sent once when a bridge connection is ready; lets a client tell a reconnect from a restart. */
  'bridge/ready': z.object({ bootId: z.string().min(1) }),
  /**
   * An event appended to a session's log (forwarded types only). `prevSeq`: the seq of the
   * previous forwarded event of that session (-1 for none), so a client that holds it has missed
   * nothing, though the seqs between (chunks) never came.
   */
  'session/event': z.object({ sessionId: Id, event: EventDto, prevSeq: z.number().int().min(-1) }),
  /** Live model output before it is committed: keyed by session and message (turn.step). */
  'stream/delta': z.object({
    sessionId: Id,
    turn: z.number().int().positive(),
    step: z.number().int().positive(),
    /** `text-is-reasoning`: what streamed as text so far in this step was reasoning. */
    kind: z.enum(['text', 'reasoning', 'text-is-reasoning']),
    text: z.string(),
  }),
  /** A tool call waits for the user's answer (`approval/respond`). */
  'approval/request': ApprovalRequest,
  /**
   * A session's turn stopped because its log could not take a write (a full or read-only disk,
   * a lock another program holds), or because of a bug: one sentence naming the cause and the
   * fix. The session is closed; its next use opens it again and repairs the unfinished turn.
   */
  'session/failed': z.object({ sessionId: Id, message: z.string().min(1) }),
  /** Sessions were created, renamed, deleted, restored, or started or stopped running. */
  'sessions/changed': z.object({ sessionIds: z.array(Id) }),
  'settings/changed': SettingsView,
  /** An MCP server started, stopped, failed or listed new tools; `mcp/list` has the details. */
  'mcp/changed': z.object({}),
} as const satisfies Record<string, z.ZodType>

export type Notifications = typeof notifications
export type TopicName = keyof Notifications
export type NotificationOf<T extends TopicName> = z.output<Notifications[T]>

export const isMethodName = (name: string): name is MethodName => Object.hasOwn(methods, name)
export const isTopicName = (name: string): name is TopicName => Object.hasOwn(notifications, name)

/**
 * Calls larger than this are refused before parsing, on both transports. Room for a message's
 * images (MAX_ATTACHMENTS of MAX_IMAGE_ATTACHMENT_BYTES, base64 adds a third) and its text.
 */
export const MAX_PAYLOAD_BYTES = 48 * 1024 * 1024

/** The IPC channels of the Electron transport: one for calls, one for notifications. */
export const IPC_CALL_CHANNEL = 'bridle:call'
export const IPC_NOTIFY_CHANNEL = 'bridle:notify'

/** What the preload exposes as `window.bridle`, and what the WebSocket client implements too. */
export interface BridleApi {
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<Result<ResultOf<M>>>
  subscribe<T extends TopicName>(
    topic: T,
    listener: (payload: NotificationOf<T>) => void,
  ): () => void
}

/** Messages of the WebSocket transport (JSON text frames). */
export const WireRequest = z.object({
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
})
export type WireRequest = z.infer<typeof WireRequest>

export const WireMessage = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('result'),
    id: z.number().int().nonnegative(),
    result: z.unknown(),
  }),
  z.object({ kind: z.literal('notify'), topic: z.string(), payload: z.unknown() }),
])
export type WireMessage = z.infer<typeof WireMessage>

/**
 * How a page of `bridle serve` proves it is the page serve admitted; its cookie cannot, because a
 * browser sends a cookie to every port of the host. Admission redirects to an address whose
 * fragment (never sent to any server) carries a fresh secret, `#bridle-page=SECRET`; the page keeps
 * it in its own origin's sessionStorage (origins include the port) and offers it when the bridge
 * socket opens as the subprotocol `bridle-page.SECRET`, which the server echoes.
 */
export const PAGE_SECRET_FRAGMENT = 'bridle-page'
export const PAGE_SECRET_PROTOCOL_PREFIX = 'bridle-page.'
