/**
 * The open session's projection of its log, as a pure reducer: no bridge, no DOM, no React, so it
 * is unit-tested as is (test/renderer/feed-reducer.test.ts). The store (session-store.ts) feeds it
 * pages of `session/events` and the bridge's notifications, and asks it what to fetch next.
 *
 * Invariants the panels rely on: `events` is sorted by seq with no seq twice, and never holds an
 * `assistant/chunk` (the live text is `streaming`). The feed is a window of the history: it opens
 * on the tail (the last page) and older pages are prepended as the chat scrolls up, so every
 * feed event in `[coveredFrom, coveredTo)` is known to be in `events`, and `coveredFrom` is 0
 * once the history's start is in. A notification names the previous forwarded event
 * (`prevSeq`); when that is covered, the seqs in between were chunks and coverage moves past the
 * new event. Otherwise events were missed, and the store fetches `[coveredTo, that seq)`.
 *
 * The window also lets go: the chat trims pages far from what it shows (`trim`), so memory stays
 * bounded while scrolling through a long history. A trimmed older side is read again as a page
 * like any other. A trimmed newer side sets `hasNewer`: newer pages are read forward from
 * `coveredTo` (`page`), or the window jumps back to the tail (`tail` with `isReset`); meanwhile
 * notifications only move `length` (their events are read with the page that reaches them). The
 * newer side is never trimmed while the session runs, so the live end is always in the window
 * while it moves.
 */
import { FORWARDED_EVENT_TYPES } from '../../../protocol/contract'
import type {
  ApprovalRequest,
  EventDto,
  ModelProfileView,
  NotificationOf,
  SessionSummary,
} from '../../../protocol/contract'
import { callKey, isDecided, lastOfType, placeOf } from './event-selectors'

export type StreamDelta = NotificationOf<'stream/delta'>
/** What `session/get` answers. */
export interface SessionDetails {
  readonly session: SessionSummary
  readonly pendingApprovals: readonly ApprovalRequest[]
  readonly contextWindow?: number | undefined
  readonly profile?: ModelProfileView | undefined
  readonly codeMode?: boolean | undefined
}

/**
 * The event types a feed holds: every forwarded one, which is every type but `assistant/chunk`.
 * Passed as `types` to `session/events` so chunks never cross the bridge when paging.
 */
export const FEED_EVENT_TYPES: readonly string[] = FORWARDED_EVENT_TYPES

export interface FeedState {
  readonly sessionId: string
  /** Absent until `session/get` answers. */
  readonly session: SessionSummary | undefined
  readonly events: readonly EventDto[]
  /** Every feed event from this seq up to `coveredTo` is in `events`; 0 when none is older. */
  readonly coveredFrom: number
  /** Every feed event below this (from `coveredFrom`) is in `events` (see the module comment). */
  readonly coveredTo: number
  /** The log's length as last heard: a page's `length`, or past the latest notified event. */
  readonly length: number
  /** True until the history's last page is in. */
  readonly isLoading: boolean
  /** True while a page older than `coveredFrom` is being read. */
  readonly isLoadingOlder: boolean
  /** Events from `coveredTo` on were trimmed off (see the module comment). */
  readonly hasNewer: boolean
  /** True while a newer page, or the tail that replaces the window, is being read. */
  readonly isLoadingNewer: boolean
  readonly streaming: readonly StreamDelta[]
  readonly pendingApprovals: readonly ApprovalRequest[]
  /**
   * Questions this session's running subagents ask (each names its own session): shown here
   * too, so a child never waits unseen. Kept apart, as a child's calls have their own places.
   */
  readonly childApprovals: readonly ApprovalRequest[]
  readonly isRunning: boolean
  readonly contextWindow: number | undefined
  /** How the session talks to its model, once its first turn resolved it (`session/get`). */
  readonly profile: ModelProfileView | undefined
  /** Code mode as `session/get` read it over the whole history (the feed may hold only its tail). */
  readonly codeMode: boolean | undefined
  /** What failed while loading, to show instead of a silent empty chat. */
  readonly error: string | undefined
}

export type FeedAction =
  /** `session/get` answered (at open, and again when the session changes). */
  | { readonly type: 'details'; readonly details: SessionDetails }
  /**
   * A page of `session/events` from `fromSeq`; `nextSeq` null means the page reached `length`,
   * so everything below `length` is now covered.
   */
  | {
      readonly type: 'page'
      readonly fromSeq: number
      readonly events: readonly EventDto[]
      readonly nextSeq: number | null
      readonly length: number
    }
  /**
   * A tail page of `session/events`: every feed event in `[coveredFrom, toSeq)`. The first one
   * (`toSeq` the log's length) opens the feed; later ones, below `coveredFrom`, reach back. One
   * with `isReset` (the log's tail, read while `hasNewer`) replaces the window.
   */
  | {
      readonly type: 'tail'
      readonly coveredFrom: number
      readonly toSeq: number
      readonly events: readonly EventDto[]
      readonly length: number
      readonly isReset?: boolean
    }
  /** A page older than `coveredFrom` was asked for. */
  | { readonly type: 'older' }
  /** A page from `coveredTo` on (or the tail) was asked for, while `hasNewer`. */
  | { readonly type: 'newer' }
  /**
   * Lets go of the events outside `[fromSeq, toSeq)`, far from what the chat shows. Either side
   * may be left as it is (`fromSeq` at or below `coveredFrom`, `toSeq` at or past `coveredTo`).
   */
  | { readonly type: 'trim'; readonly fromSeq: number; readonly toSeq: number }
  /**
   * A `session/event` notification. `prevSeq` is the seq of the previous forwarded event (-1 for
   * none): the seqs between it and this event are chunks, never forwarded, so a feed that covers
   * `prevSeq` covers this event too. Absent when not known (then only a seq that follows on does).
   */
  | { readonly type: 'event'; readonly event: EventDto; readonly prevSeq?: number }
  | { readonly type: 'delta'; readonly delta: StreamDelta }
  | { readonly type: 'approval'; readonly request: ApprovalRequest }
  /** An event of another session (a subagent's): a decision or a turn's end settles its questions. */
  | { readonly type: 'child-event'; readonly sessionId: string; readonly event: EventDto }
  | { readonly type: 'running'; readonly isRunning: boolean }
  | { readonly type: 'failed'; readonly message: string }

export function initialFeed(sessionId: string): FeedState {
  return {
    sessionId,
    session: undefined,
    events: [],
    coveredFrom: 0,
    coveredTo: 0,
    length: 0,
    isLoading: true,
    isLoadingOlder: false,
    hasNewer: false,
    isLoadingNewer: false,
    streaming: [],
    pendingApprovals: [],
    childApprovals: [],
    isRunning: false,
    contextWindow: undefined,
    profile: undefined,
    codeMode: undefined,
    error: undefined,
  }
}

export function reduceFeed(state: FeedState, action: FeedAction): FeedState {
  switch (action.type) {
    case 'details':
      return {
        ...state,
        session: action.details.session,
        isRunning: action.details.session.isRunning,
        contextWindow: action.details.contextWindow,
        profile: action.details.profile,
        codeMode: action.details.codeMode,
        pendingApprovals: mergeApprovals(
          action.details.pendingApprovals.filter((a) => a.sessionId === state.sessionId),
          state.pendingApprovals,
          state.events,
        ),
        childApprovals: action.details.pendingApprovals.filter(
          (a) => a.sessionId !== state.sessionId && a.subagent?.sessionId === state.sessionId,
        ),
      }
    case 'page':
      return applyPage(state, action)
    case 'tail':
      return applyTail(state, action)
    case 'older':
      return state.isLoadingOlder ? state : { ...state, isLoadingOlder: true }
    case 'newer':
      return state.isLoadingNewer || !state.hasNewer ? state : { ...state, isLoadingNewer: true }
    case 'trim':
      return applyTrim(state, action.fromSeq, action.toSeq)
    case 'event':
      return applyEvent(state, action.event, action.prevSeq)
    case 'delta':
      return applyDelta(state, action.delta)
    case 'approval':
      if (action.request.subagent?.sessionId === state.sessionId) {
        const key = childKey(action.request)
        return {
          ...state,
          childApprovals: [
            ...state.childApprovals.filter((a) => childKey(a) !== key),
            action.request,
          ],
        }
      }
      if (action.request.sessionId !== state.sessionId) return state
      if (isDecided(state.events, action.request)) return state
      return {
        ...state,
        pendingApprovals: [
          ...state.pendingApprovals.filter((a) => callKey(a) !== callKey(action.request)),
          action.request,
        ],
      }
    case 'child-event': {
      const { sessionId, event } = action
      const settled =
        event.type === 'turn/end'
          ? (a: ApprovalRequest) => a.sessionId === sessionId
          : event.type === 'approval/decided'
            ? (a: ApprovalRequest) => childKey(a) === `${sessionId}:${callKey(placeOf(event))}`
            : undefined
      if (!settled || !state.childApprovals.some(settled)) return state
      return { ...state, childApprovals: state.childApprovals.filter((a) => !settled(a)) }
    }
    case 'running':
      return {
        ...state,
        isRunning: action.isRunning,
        // A stopped session streams nothing more; what was streamed is in its log now.
        streaming: action.isRunning ? state.streaming : [],
      }
    case 'failed':
      return {
        ...state,
        isLoading: false,
        isLoadingOlder: false,
        isLoadingNewer: false,
        error: action.message,
      }
  }
}

/** Where the store should fetch from to close a gap, or undefined when there is none. */
export function gapStart(state: FeedState): number | undefined {
  // A trimmed newer side is no gap: it is read again when the chat comes back to it.
  if (state.isLoading || state.hasNewer) return undefined
  const last = state.events.at(-1)
  return last !== undefined && last.seq >= state.coveredTo ? state.coveredTo : undefined
}

function applyPage(state: FeedState, page: Extract<FeedAction, { type: 'page' }>): FeedState {
  const events = mergeEvents(state.events, page.events.filter(isFeedEvent))
  // A page holds every feed event from `fromSeq` up to `nextSeq` (the next one it left out), or
  // up to `length` when it is the last page.
  const pageEnd = page.nextSeq ?? page.length
  const coveredTo =
    page.fromSeq <= state.coveredTo ? Math.max(state.coveredTo, pageEnd) : state.coveredTo
  const length = Math.max(state.length, page.length)
  const next = { ...state, events, length, coveredTo: advanceCovered(events, coveredTo) }
  if (state.hasNewer) {
    // A newer page: the window reaches the log's end again once a page is its last.
    const isAtEnd = page.nextSeq === null && page.fromSeq <= state.coveredTo
    return { ...next, hasNewer: !isAtEnd, isLoadingNewer: false }
  }
  return page.nextSeq === null ? settle({ ...next, isLoading: false }) : next
}

/** Where the next newer page starts, or undefined when the window reaches the log's end. */
export function newerStart(state: FeedState): number | undefined {
  if (!state.hasNewer || state.isLoadingNewer || state.isLoading) return undefined
  return state.coveredTo
}

/** Where the next older page ends (exclusive), or undefined when the history's start is in. */
export function olderEnd(state: FeedState): number | undefined {
  if (state.isLoading || state.isLoadingOlder || state.coveredFrom === 0) return undefined
  return state.coveredFrom
}

function applyTail(state: FeedState, page: Extract<FeedAction, { type: 'tail' }>): FeedState {
  if (page.isReset === true) {
    if (!state.hasNewer) return { ...state, isLoadingNewer: false }
    const events = page.events.filter(isFeedEvent)
    const coveredTo = advanceCovered(events, page.toSeq)
    const length = Math.max(state.length, page.length)
    const window = { coveredFrom: page.coveredFrom, coveredTo, hasNewer: false }
    return settle({ ...state, ...window, events, length, isLoadingNewer: false })
  }
  const events = mergeEvents(state.events, page.events.filter(isFeedEvent))
  const length = Math.max(state.length, page.length)
  if (state.isLoading) {
    // The opening page: its window is the whole coverage (notifications already in follow it).
    const coveredTo = advanceCovered(events, Math.max(state.coveredTo, page.toSeq))
    const opened = { ...state, events, length, coveredFrom: page.coveredFrom, coveredTo }
    return settle({ ...opened, isLoading: false, isLoadingOlder: false })
  }
  // An older page joins the window only when it reaches up to it (no hole between them).
  const joins = page.toSeq >= state.coveredFrom
  const coveredFrom = joins ? Math.min(state.coveredFrom, page.coveredFrom) : state.coveredFrom
  return { ...state, events, length, coveredFrom, isLoadingOlder: false }
}

function applyEvent(state: FeedState, event: EventDto, prevSeq?: number): FeedState {
  if (!isFeedEvent(event)) return state
  // Past a trimmed newer side: read with the page that reaches it; it may still settle a question.
  if (state.hasNewer)
    return settle({ ...state, length: Math.max(state.length, event.seq + 1) }, event)
  const events = mergeEvents(state.events, [event])
  if (events === state.events) return state
  // Covered up to the previous forwarded event: nothing but chunks lies between it and this one.
  const followsOn =
    event.seq === state.coveredTo || (prevSeq !== undefined && prevSeq < state.coveredTo)
  const coveredTo = followsOn ? Math.max(state.coveredTo, event.seq + 1) : state.coveredTo
  const length = Math.max(state.length, event.seq + 1)
  return settle({ ...state, events, length, coveredTo: advanceCovered(events, coveredTo) }, event)
}

/**
 * Keeps only the events in `[fromSeq, toSeq)`. The newer side stays while the session runs or
 * streams (its live end must stay in the window); a window that would end up empty stays whole.
 */
function applyTrim(state: FeedState, fromSeq: number, toSeq: number): FeedState {
  if (state.isLoading) return state
  const isLive = state.isRunning || state.streaming.length > 0
  const from = Math.max(state.coveredFrom, fromSeq)
  const to = isLive || toSeq >= state.coveredTo ? Number.POSITIVE_INFINITY : toSeq
  if (from === state.coveredFrom && to === Number.POSITIVE_INFINITY) return state
  if (from >= Math.min(to, state.coveredTo)) return state
  const events = state.events.filter((event) => event.seq >= from && event.seq < to)
  const isNewerTrimmed = to !== Number.POSITIVE_INFINITY
  return {
    ...state,
    events,
    coveredFrom: from,
    coveredTo: isNewerTrimmed ? to : state.coveredTo,
    hasNewer: state.hasNewer || isNewerTrimmed,
  }
}

/**
 * Brings the derived parts in line with the events: a step's deltas go once its message is
 * logged, a turn's once it ends, and an approval once it is decided.
 */
function settle(state: FeedState, event?: EventDto): FeedState {
  let { streaming, pendingApprovals } = state
  const events = event ? [event] : state.events
  for (const e of events) {
    if (e.type === 'assistant/message') {
      streaming = streaming.filter((d) => isAfter(d, e.turn, e.step))
    } else if (e.type === 'turn/end') {
      streaming = streaming.filter((d) => d.turn > e.turn)
    } else if (e.type === 'approval/decided') {
      const decided = callKey(placeOf(e))
      pendingApprovals = pendingApprovals.filter((a) => callKey(a) !== decided)
    }
  }
  if (streaming === state.streaming && pendingApprovals === state.pendingApprovals) return state
  return { ...state, streaming, pendingApprovals }
}

function applyDelta(state: FeedState, delta: StreamDelta): FeedState {
  if (delta.sessionId !== state.sessionId) return state
  // A delta of a step whose message is already logged is late: drop it.
  const message = lastOfType(state.events, 'assistant/message')
  if (message && !isAfter(delta, message.turn, message.step)) return state
  // Only the step now streaming is kept: an older step's deltas are superseded.
  const current = state.streaming.filter((d) => d.turn === delta.turn && d.step === delta.step)
  return { ...state, streaming: [...current, delta] }
}

const isFeedEvent = (event: EventDto): boolean => event.type !== 'assistant/chunk'

function isAfter(delta: StreamDelta, turn: number, step: number): boolean {
  return delta.turn > turn || (delta.turn === turn && delta.step > step)
}

/** `session/get`'s list, plus requests notified since, less those the log shows decided. */
/** A subagent's question: its call's place within its own session. */
const childKey = (request: ApprovalRequest): string => `${request.sessionId}:${callKey(request)}`

function mergeApprovals(
  fromServer: readonly ApprovalRequest[],
  known: readonly ApprovalRequest[],
  events: readonly EventDto[],
): readonly ApprovalRequest[] {
  const byCall = new Map<string, ApprovalRequest>()
  for (const request of [...fromServer, ...known]) {
    if (!byCall.has(callKey(request))) byCall.set(callKey(request), request)
  }
  return [...byCall.values()].filter((request) => !isDecided(events, request))
}

/**
 * Merges events into a sorted, seq-unique list. The common cases (a page or a notification past
 * the end, an older page before the start) append or prepend; anything else merges by seq. Returns `into` itself when nothing was new.
 */
export function mergeEvents(
  into: readonly EventDto[],
  incoming: readonly EventDto[],
): readonly EventDto[] {
  if (incoming.length === 0) return into
  const last = into.at(-1)
  const first = incoming[0]
  if (first !== undefined && (last === undefined || first.seq > last.seq) && isSorted(incoming)) {
    return [...into, ...incoming]
  }
  // An older page, wholly below what is there: prepended without a merge.
  const lastIncoming = incoming.at(-1)
  const firstInto = into[0]
  if (lastIncoming !== undefined && firstInto !== undefined && lastIncoming.seq < firstInto.seq) {
    if (isSorted(incoming)) return [...incoming, ...into]
  }
  const bySeq = new Map<number, EventDto>()
  for (const event of into) bySeq.set(event.seq, event)
  let added = false
  for (const event of incoming) {
    if (!bySeq.has(event.seq)) {
      bySeq.set(event.seq, event)
      added = true
    }
  }
  if (!added) return into
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq)
}

function isSorted(events: readonly EventDto[]): boolean {
  for (let i = 1; i < events.length; i++) {
    const previous = events[i - 1]
    const current = events[i]
    if (previous === undefined || current === undefined || current.seq <= previous.seq) return false
  }
  return true
}

/** Extends coverage over events that follow on without a gap (notifications after a refetch). */
function advanceCovered(events: readonly EventDto[], coveredTo: number): number {
  let covered = coveredTo
  // Walk back from the end only as far as needed: coverage moves forward a few events at a time.
  let i = events.length - 1
  while (i >= 0 && (events[i]?.seq ?? -1) >= covered) i--
  for (let j = i + 1; j < events.length; j++) {
    if (events[j]?.seq !== covered) break
    covered++
  }
  return covered
}
