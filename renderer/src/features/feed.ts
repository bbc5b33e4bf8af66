/**
 * The seam between the app shell and the feature panels. The shell owns the bridge connection
 * and the projections of the log it receives (the open session's events, live deltas, pending
 * approvals); features render from these props and call the contract through `api`. No agent
 * state lives in React beyond these projections and view state.
 */
import type {
  ApprovalRequest,
  BridleApi,
  EventDto,
  ModelProfileView,
  NotificationOf,
  SessionSummary,
} from '../../../protocol/contract'
import type { EventCache } from '../state/event-cache'

export type StreamDelta = NotificationOf<'stream/delta'>

/** What the shell knows about the open session, kept in step with its log. */
export interface SessionFeed {
  readonly session: SessionSummary
  /**
   * The session's events in seq order, without `assistant/chunk` (the live text comes as
   * `streaming`). A window of the history: the shell reads its tail from `session/events`,
   * prepends older pages on demand, and appends `session/event` notifications; a chat of 10k
   * messages is about 30k of these. A panel that needs the whole history reads it itself.
   */
  readonly events: readonly EventDto[]
  /**
   * Every event of the session, chunks included, for panels that show the raw log: `events`
   * plus chunks read on demand. Read from here, never from `session/events` directly.
   */
  readonly cache: EventCache
  /** True until the shell has read the history's last page. */
  readonly isLoading: boolean
  /**
   * The history holds events older than `events` (the feed opens on its tail): the chat reads
   * them page by page as it scrolls up (the store's `loadOlder`).
   */
  readonly hasOlder: boolean
  /** An older page is being read. */
  readonly isLoadingOlder: boolean
  /**
   * The chat scrolled far up and the feed let go of its newest events: `events` ends before the
   * log does. Newer pages are read as the chat scrolls down (`loadNewer`), or the tail at once
   * (`loadLatest`); until then notifications do not add to `events`.
   */
  readonly hasNewer: boolean
  /** A newer page, or the tail, is being read. */
  readonly isLoadingNewer: boolean
  /** Deltas of the step now streaming (cleared when its `assistant/message` arrives). */
  readonly streaming: readonly StreamDelta[]
  readonly pendingApprovals: readonly ApprovalRequest[]
  /** Questions the session's running subagents ask (each names its own session). */
  readonly childApprovals: readonly ApprovalRequest[]
  readonly isRunning: boolean
  /** The model's window in tokens, when known (for the context meter). */
  readonly contextWindow?: number
  /** How the session talks to its model (for the model badge), once its first turn resolved it. */
  readonly profile?: ModelProfileView
  /**
   * Code mode over the whole history, as the session's details last said; the feed's own
   * `session/code-mode` events (its tail, so the newest) take precedence.
   */
  readonly codeMode?: boolean
}

/** Props every session panel (chat, checkpoints, timeline) takes. */
export interface SessionPanelProps {
  readonly api: BridleApi
  readonly feed: SessionFeed
  /** The event selected across panels (chat message <-> timeline row), if any. */
  readonly selectedSeq?: number
  readonly onSelectSeq: (seq: number | undefined) => void
  /** Opens another session (a fork, the parent of a fork). */
  readonly onOpenSession: (sessionId: string) => void
  /** Shows a panel of the right drawer (e.g. the timeline at the selected event). */
  readonly onShowPanel: (panel: DrawerPanel) => void
}

export type DrawerPanel = 'timeline' | 'checkpoints' | 'settings'
