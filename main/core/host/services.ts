/**
 * The seams between the Host's parts. `boot` builds one of each and hands them to the handler
 * groups: settings (config.json, endpoints, credentials, model resolution), the runtime (agents
 * of open sessions, approvals, compaction) and the session views (lists, tree, events, forks).
 */
import type { ApprovalRequest, ModelProfileView } from '../../../protocol/contract.js'
import type { ProbeReport } from '../../../protocol/probe-report.js'
import type { Session } from '../log/session.js'
import type { ModelConnection } from './endpoints/connection.js'
import type { Store } from '../store/index.js'
import type { Config } from './settings/config.js'
import type { HostHandlers, NotificationSink } from './host.js'

/**
 * A model to talk to: resolved from an endpoint id (or the default) and a model name, with what
 * is known of the server (a test may give only the adapter and the model).
 */
export type ModelChoice = Pick<ModelConnection, 'adapter' | 'model'> &
  Partial<Omit<ModelConnection, 'adapter' | 'model'>> & {
    readonly endpointId: string
    readonly baseUrl: string
    /**
     * Connected without the server's listing (it did not answer): its kind and window are
     * unknown, so an idle agent built on it is built again at the next turn.
     */
    readonly isProvisional?: boolean
  }

/** Encrypts secrets at rest: Electron's safeStorage in the app; absent in serve and CLI mode. */
export interface SecretBox {
  readonly isAvailable: () => boolean
  readonly encrypt: (plain: string) => Buffer
  readonly decrypt: (sealed: Buffer) => string
}

export interface SettingsService {
  /** config.json now, defaults filled in (re-read when the file changed on disk). */
  current(): Config
  /**
   * The endpoint and model a new session gets when none is given, without asking any server:
   * the `--base-url` override of `bridle serve`, else the project's own defaults (config's
   * `projects`), else config's default endpoint (or the only one) and its preset model. Either
   * may be undefined (then resolved at the first turn).
   */
  defaults(projectDir?: string): { readonly endpointId?: string; readonly model?: string }
  /**
   * The endpoint and model for a session: `endpointId` (else the default endpoint, else the only
   * one) and `model` (else the default model). Throws a HostError (NOT_FOUND, ENDPOINT_FAILED)
   * that says what to configure.
   */
  resolveModel(ref: { readonly endpointId?: string; readonly model?: string }): Promise<ModelChoice>
  /**
   * Counts changes that should rebuild idle agents: config.json, and a probe that changed what
   * is known of a model.
   */
  revision(): number
  /** The last probe of `model` at `baseUrl`, if one ran. */
  probeReport(baseUrl: string, model: string): ProbeReport | undefined
  /**
   * The API keys this host knows (environment and credential store), to redact exports. Absent
   * only in test fakes: exports then redact token shapes alone.
   */
  knownSecrets?(): string[]
  /** Appends an approval rule to config.json (for "always allow" answered in the UI). */
  rememberApprovalRule(rule: {
    readonly tool: string
    readonly prefix?: string
    readonly pattern?: string
    readonly effect: 'allow' | 'deny'
    readonly project: string
  }): void
}

export interface RuntimeService {
  /**
   * The session's writable handle, opened (and repaired) on first use and kept open by the
   * runtime: everything that appends to a session (a rename, a compaction) goes through it, so
   * there is one writer per session in this process. Throws HostError NOT_FOUND or CONFLICT
   * (locked by another process).
   */
  session(sessionId: string): Session
  /** A turn is running in this session now. */
  isRunning(sessionId: string): boolean
  /** Tool calls in this session waiting for the user's answer. */
  pendingApprovals(sessionId: string): readonly ApprovalRequest[]
  /** The window of the session's model, once the runtime has resolved it. */
  contextWindow(sessionId: string): number | undefined
  /** How the session talks to its model, once the runtime has resolved it. */
  profile(sessionId: string): ModelProfileView | undefined
  /**
   * Logs a switch of the session's model (`session/model`), durably. An idle agent is built again
   * for the next turn; a running turn keeps its model, and the next turn uses the new one.
   */
  switchModel(
    sessionId: string,
    ref: { readonly endpointId?: string; readonly model: string },
  ): Promise<void>
  /** Cancels every turn, closes every agent and session. */
  close(): Promise<void>
}

export interface HostContext {
  readonly home: string
  readonly store: Store
  readonly notify: NotificationSink
  /** Electron's folder picker; absent in serve mode, where `project/open` needs a path. */
  readonly pickFolder?: () => Promise<string | undefined>
}

export type SettingsMethods =
  | 'settings/get'
  | 'settings/update'
  | 'endpoint/list'
  | 'endpoint/test'
  | 'endpoint/discover'
  | 'model/list'
  | 'model/probe'
  | 'credential/set'
  | 'credential/delete'
export type McpMethods =
  'mcp/list' | 'mcp/trust' | 'mcp/setEnabled' | 'mcp/restart' | 'mcp/catalog' | 'mcp/prompt'
export type RuntimeMethods =
  | 'turn/send'
  | 'turn/cancel'
  | 'approval/respond'
  | 'compaction/run'
  | 'compaction/undo'
  | 'session/setCodeMode'
  | 'workspace/restore'
  | 'workspace/undoRestore'
export type SessionMethods =
  | 'project/open'
  | 'project/recent'
  | 'session/list'
  | 'session/create'
  | 'session/get'
  | 'session/rename'
  | 'session/setModel'
  | 'session/delete'
  | 'session/restore'
  | 'session/tree'
  | 'session/fork'
  | 'session/events'
  | 'session/search'
  | 'session/request'
  | 'output/read'
  | 'workspace/diff'
  | 'session/export'
  | 'project/files-exist'
  | 'project/files'
  | 'import/scan'
  | 'import/inspect'
  | 'import/run'

export type HandlerGroup<M extends keyof HostHandlers> = Pick<HostHandlers, M>
