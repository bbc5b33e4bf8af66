/**
 * The shell's state: the connection, the projects, the session list and the open session's feed.
 * It holds only projections of what the bridge says and view state; every change of a session
 * comes back from the log (`session/event`, `sessions/changed`) rather than being assumed here.
 *
 * One store per bridge (created by the App); the actions are on the state so components call
 * them through the same selector hook. Notifications are subscribed once, in `createShellStore`,
 * and `dispose` removes them.
 */
import { createStore } from 'zustand/vanilla'
import type { StoreApi } from 'zustand/vanilla'
import type {
  BridgeError,
  BridleApi,
  NotificationOf,
  Project,
  Result,
  ResultOf,
  SessionSummary,
} from '../../../protocol/contract'
import type { AttachmentInput } from '../../../protocol/attachments'
import type { DrawerPanel } from '../features/feed'
import type { EventCache } from './event-cache'
import type { RestoreRequest } from './restore-request'
import { FEED_EVENT_TYPES, gapStart, newerStart, olderEnd, reduceFeed } from './feed-reducer'
import type { FeedAction, FeedState, SessionDetails } from './feed-reducer'
import { upsertSessions } from './session-tree'
import { initialState } from './shell-actions'
import type { StoreOps } from './shell-actions'

/** How many events a `session/events` page asks for. */
export const EVENTS_PAGE_SIZE = 2000
/**
 * How many events the opening page (the history's tail) and the first older page ask for: about
 * 150 messages, several screens to scroll before the next page, read and parsed in tens of ms.
 */
export const TAIL_PAGE_SIZE = 500
/**
 * The most an older page asks for. Older pages grow with the window (as many events as it holds,
 * up to this): each prepend projects the chat again from its start, so doubling pages keep the
 * total work of scrolling to the start of a 200k-event session near linear, not quadratic.
 */
export const OLDER_PAGE_MAX = 5000
/** How many sessions a `session/list` page asks for. */
export const SESSIONS_PAGE_SIZE = 100
/** How long notifications may pile up past a gap before the gap is fetched. */
const GAP_FETCH_DELAY_MS = 150
/**
 * How often a quiet connection is checked. The WebSocket client reconnects by itself but says
 * nothing when it drops; a cheap call is how the banner learns the bridge is gone.
 */
const HEARTBEAT_MS = 10_000

export type ConnectionStatus = 'connecting' | 'ready' | 'lost'

export type ShellPage = 'chat' | 'settings'
export type InspectorPanel = Exclude<DrawerPanel, 'settings'>

export interface SearchHit {
  readonly sessionId: string
  readonly title: string | null
  readonly seq: number
  readonly type: string
  readonly snippet: string
}

export interface ShellState {
  readonly connection: {
    readonly status: ConnectionStatus
    readonly bootId: string | undefined
    /** Times the bridge came back after being lost or restarted. */
    readonly reconnects: number
    readonly message: string | undefined
  }
  /** Unknown until `settings/get` answers; FirstRun shows when it is false. */
  readonly hasEndpoints: boolean | undefined
  readonly projects: readonly Project[]
  readonly projectDir: string | undefined
  readonly sessions: readonly SessionSummary[]
  readonly sessionsCursor: string | null
  readonly sessionsLoading: boolean
  readonly search: {
    readonly query: string
    readonly hits: readonly SearchHit[]
    readonly isSearching: boolean
  }
  readonly feed: FeedState | undefined
  /** The open session's events for every panel: the feed's, plus chunks read on demand. */
  readonly eventCache: EventCache | undefined
  readonly selectedSeq: number | undefined
  readonly drawer: { readonly isOpen: boolean; readonly panel: InspectorPanel }
  /** What fills the window under the top bar: the chat (with its panels) or the settings page. */
  readonly page: ShellPage
  /**
   * The sessions sidebar: a panel beside the chat when the window is wide (`isOpen`), a sheet
   * over it when narrow (`isSheetOpen`, closed until asked for).
   */
  readonly sidebar: { readonly isOpen: boolean; readonly isSheetOpen: boolean }
  /** The "Import…" dialog is open (kept here, not in the sidebar, which a resize remounts). */
  readonly isImportOpen: boolean
  /** What the "Restore files" dialog was asked to do, while it is open. */
  readonly restore: RestoreRequest | undefined
  /** The session "Export…" is open for, if any (kept here for the same reason). */
  readonly exportSessionId: string | undefined
  /** The last action that failed, said in words for a dismissible alert. */
  readonly notice: string | undefined

  readonly start: () => Promise<void>
  /**
   * Opens a folder (the picker without `path`); one that is or holds the home folder is opened
   * only after the user confirms the warning, or with `allowHome`.
   */
  readonly openProject: (path?: string, allowHome?: boolean) => Promise<void>
  readonly selectProject: (path: string) => void
  readonly loadMoreSessions: () => Promise<void>
  readonly setSearch: (query: string) => Promise<void>
  readonly openSession: (sessionId: string, selectSeq?: number) => Promise<void>
  /** Reads the open session's next older page, if there is one and none is being read. */
  readonly loadOlder: () => Promise<void>
  /** Reads older pages until the feed holds `seq` (a selection made far back in the history). */
  readonly reachBack: (seq: number) => Promise<void>
  /** Reads the page after the feed's window, when its newer side was trimmed off. */
  readonly loadNewer: () => Promise<void>
  /** Puts the log's tail back in the feed, when its newer side was trimmed off (a jump to the end). */
  readonly loadLatest: () => Promise<void>
  /** Lets go of the feed's events outside `[fromSeq, toSeq)` (pages far from what the chat shows). */
  readonly trimFeed: (fromSeq: number, toSeq: number) => void
  readonly closeSession: () => void
  /** Creates a session in the current project and opens it; `title` names it at once. */
  readonly createSession: (title?: string) => Promise<string | undefined>
  readonly renameSession: (sessionId: string, title: string) => Promise<void>
  readonly deleteSession: (sessionId: string) => Promise<void>
  /** Shows a session just imported: its project (opened if it is another) and the session. */
  readonly openImported: (session: SessionSummary) => Promise<void>
  /** Forks `sessionId` before `atSeq` and opens the fork. */
  readonly forkSession: (sessionId: string, atSeq: number) => Promise<void>
  /** Sends text (and attachments); resolves false when the call was refused and nothing was logged (the notice says why). */
  readonly send: (text: string, attachments?: readonly AttachmentInput[]) => Promise<boolean>
  readonly stop: () => Promise<void>
  readonly selectSeq: (seq: number | undefined) => void
  /** Shows an inspector panel, or the settings page for `'settings'`. */
  readonly showPanel: (panel: DrawerPanel) => void
  readonly toggleDrawer: () => void
  readonly openSettings: () => void
  readonly closeSettings: () => void
  readonly toggleSidebar: () => void
  readonly setSidebarSheet: (isOpen: boolean) => void
  /** Opens or closes "Import…"; opening closes the sessions sheet it was opened from. */
  readonly setImportOpen: (isOpen: boolean) => void
  /** Opens "Restore files" (or replaces what it shows: the done screen's "Undo restore"). */
  readonly openRestore: (request: RestoreRequest) => void
  readonly closeRestore: () => void
  /** Opens "Export…" for a session, or closes it; opening closes the sessions sheet too. */
  readonly setExportSession: (sessionId: string | undefined) => void
  readonly setEndpointsConfigured: () => void
  readonly dismissNotice: () => void
}

export type ShellStore = StoreApi<ShellState>

/**
 * Builds the store for one bridge. `connect()` subscribes to the notifications and returns the
 * disposer; it is separate so React's effects (run twice in development) can pair it with its
 * cleanup, while the store itself lives as long as the App.
 */
export function createShellStore(api: BridleApi): {
  store: ShellStore
  connect: () => () => void
} {
  let gapTimer: ReturnType<typeof setTimeout> | undefined
  let isGapFetching = false
  // The helpers below read the store only when called, after it exists (it is created last).
  const get = (): ShellState => store.getState()
  const set = (partial: Partial<ShellState>) => store.setState(partial)

  /** Calls the bridge and tracks the connection by the answer. */
  const call: BridleApi['call'] = async (method, params) => {
    const result = await api.call(method, params)
    const { connection } = get()
    if (result.ok && connection.status !== 'ready') {
      set({ connection: { ...connection, status: 'ready', message: undefined } })
    } else if (!result.ok && result.error.code === 'DISCONNECTED') {
      set({ connection: { ...connection, status: 'lost', message: result.error.message } })
    }
    return result
  }

  /** Applies an action to the feed if it is still the open session's. */
  const dispatch = (sessionId: string, action: FeedAction) => {
    const { feed } = get()
    if (feed?.sessionId !== sessionId) return
    const next = reduceFeed(feed, action)
    if (next !== feed) set({ feed: next })
    if (gapStart(next) !== undefined) scheduleGapFetch()
  }

  /** Pages the history from `fromSeq` to its end into the feed; stops if another opens. */
  const pageEvents = async (sessionId: string, fromSeq: number) => {
    let from: number | null = fromSeq
    while (from !== null) {
      const result: Result<ResultOf<'session/events'>> = await call('session/events', {
        sessionId,
        fromSeq: from,
        types: [...FEED_EVENT_TYPES],
        limit: EVENTS_PAGE_SIZE,
      })
      if (get().feed?.sessionId !== sessionId) return
      if (!result.ok) {
        dispatch(sessionId, { type: 'failed', message: result.error.message })
        return
      }
      const { events, nextSeq, length } = result.value
      dispatch(sessionId, { type: 'page', fromSeq: from, events, nextSeq, length })
      from = result.value.nextSeq
    }
  }

  /**
   * Reads the feed's last page (`toSeq` absent: the session opening) or the page below `toSeq`
   * (scrolling up), in one call; stops if another session opened meanwhile.
   */
  const pageTail = async (sessionId: string, toSeq?: number, limit = TAIL_PAGE_SIZE) => {
    const result = await call('session/events', {
      sessionId,
      tail: true,
      types: [...FEED_EVENT_TYPES],
      limit,
      ...(toSeq === undefined ? {} : { toSeq }),
    })
    if (get().feed?.sessionId !== sessionId) return
    if (!result.ok) {
      dispatch(sessionId, { type: 'failed', message: result.error.message })
      return
    }
    const { events, length, coveredFrom } = result.value
    dispatch(sessionId, {
      type: 'tail',
      events,
      length,
      coveredFrom: coveredFrom ?? 0,
      toSeq: toSeq ?? length,
    })
  }

  /** The older page being read, so a second asker waits for it rather than giving up. */
  let olderRead: { sessionId: string; done: Promise<void> } | undefined

  const loadOlder = (): Promise<void> => {
    const { feed } = get()
    if (feed === undefined) return Promise.resolve()
    // Only while the page is still being read: once it landed (the feed says so before the
    // promise settles) a new ask reads the next page.
    if (olderRead?.sessionId === feed.sessionId && feed.isLoadingOlder) return olderRead.done
    const end = olderEnd(feed)
    if (end === undefined) return Promise.resolve()
    dispatch(feed.sessionId, { type: 'older' })
    const limit = Math.min(OLDER_PAGE_MAX, Math.max(TAIL_PAGE_SIZE, feed.events.length))
    const read = {
      sessionId: feed.sessionId,
      done: pageTail(feed.sessionId, end, limit).finally(() => {
        if (olderRead === read) olderRead = undefined
      }),
    }
    olderRead = read
    return read.done
  }

  /** The newer page being read, so a second asker waits for it. */
  let newerRead: { sessionId: string; done: Promise<void> } | undefined

  const loadNewer = (): Promise<void> => {
    const { feed } = get()
    if (feed === undefined) return Promise.resolve()
    if (newerRead?.sessionId === feed.sessionId && feed.isLoadingNewer) return newerRead.done
    const from = newerStart(feed)
    if (from === undefined) return Promise.resolve()
    const { sessionId } = feed
    dispatch(sessionId, { type: 'newer' })
    const limit = Math.min(OLDER_PAGE_MAX, Math.max(TAIL_PAGE_SIZE, feed.events.length))
    const readPage = async () => {
      const types = [...FEED_EVENT_TYPES]
      const result = await call('session/events', { sessionId, fromSeq: from, types, limit })
      // A jump to the end replaced the window meanwhile: this page is not next to it any more.
      if (get().feed?.sessionId !== sessionId || get().feed?.hasNewer !== true) return
      if (!result.ok) {
        dispatch(sessionId, { type: 'failed', message: result.error.message })
        return
      }
      const { events, nextSeq, length } = result.value
      dispatch(sessionId, { type: 'page', fromSeq: from, events, nextSeq, length })
    }
    const read = {
      sessionId,
      done: readPage().finally(() => {
        if (newerRead === read) newerRead = undefined
      }),
    }
    newerRead = read
    return read.done
  }

  /** The tail being read to replace the window, so a second jump waits for it. */
  let latestRead: { sessionId: string; done: Promise<void> } | undefined

  const loadLatest = (): Promise<void> => {
    const { feed } = get()
    if (feed === undefined || !feed.hasNewer) return Promise.resolve()
    if (latestRead?.sessionId === feed.sessionId) return latestRead.done
    const { sessionId } = feed
    dispatch(sessionId, { type: 'newer' })
    const readTail = async () => {
      const result = await call('session/events', {
        sessionId,
        tail: true,
        types: [...FEED_EVENT_TYPES],
        limit: TAIL_PAGE_SIZE,
      })
      const heard = get().feed
      if (heard?.sessionId !== sessionId) return
      if (!result.ok) {
        dispatch(sessionId, { type: 'failed', message: result.error.message })
        return
      }
      const { events, length, coveredFrom } = result.value
      const from = coveredFrom ?? 0
      dispatch(sessionId, {
        type: 'tail',
        events,
        length,
        coveredFrom: from,
        toSeq: length,
        isReset: true,
      })
      // Events notified while the window was away and logged after the read: read them now.
      const after = get().feed
      if (after !== undefined && heard.length > after.coveredTo)
        void pageEvents(sessionId, after.coveredTo)
    }
    const read = {
      sessionId,
      done: readTail().finally(() => {
        if (latestRead === read) latestRead = undefined
      }),
    }
    latestRead = read
    return read.done
  }

  const trimFeed = (fromSeq: number, toSeq: number) => {
    const { feed } = get()
    if (feed !== undefined) dispatch(feed.sessionId, { type: 'trim', fromSeq, toSeq })
  }

  const reachBack = async (seq: number) => {
    for (;;) {
      const { feed } = get()
      if (feed === undefined || feed.isLoading || feed.error !== undefined) return
      if (feed.hasNewer && seq >= feed.coveredTo) {
        await loadNewer()
        if (get().feed?.coveredTo === feed.coveredTo) return
        continue
      }
      if (feed.coveredFrom <= seq || feed.coveredFrom === 0) return
      await loadOlder()
      // Nothing moved (the read failed or another session opened): stop rather than spin.
      if (get().feed?.coveredFrom === feed.coveredFrom) return
    }
  }

  /**
   * Fetches past a gap once notifications settle: one call per burst, not per event. Skipped
   * chunks are no gap (each notification names the previous forwarded seq), so this runs only
   * when notifications were really missed.
   */
  const scheduleGapFetch = () => {
    if (gapTimer !== undefined || isGapFetching) return
    gapTimer = setTimeout(() => {
      gapTimer = undefined
      const { feed } = get()
      const from = feed ? gapStart(feed) : undefined
      if (!feed || from === undefined) return
      isGapFetching = true
      void pageEvents(feed.sessionId, from).finally(() => {
        isGapFetching = false
        const after = get().feed
        if (after && gapStart(after) !== undefined) scheduleGapFetch()
      })
    }, GAP_FETCH_DELAY_MS)
  }

  const refreshDetails = async (sessionId: string) => {
    const result = await call('session/get', { sessionId })
    if (result.ok) dispatch(sessionId, { type: 'details', details: result.value })
    else if (result.error.code === 'NOT_FOUND') get().closeSession()
  }

  const loadSessions = async (cursor: string | null) => {
    const { projectDir } = get()
    if (projectDir === undefined) return
    set({ sessionsLoading: true })
    const result = await call('session/list', { projectDir, cursor, limit: SESSIONS_PAGE_SIZE })
    if (get().projectDir !== projectDir) return
    set({ sessionsLoading: false })
    if (!result.ok) return fail('Could not list the sessions', result.error)
    const known = cursor === null ? [] : get().sessions
    set({
      sessions: upsertSessions(known, result.value.items, projectDir),
      sessionsCursor: result.value.nextCursor,
    })
  }

  /** Says what failed; a lost connection is the banner's to say, once, not every action's. */
  const fail = (what: string, error: BridgeError) => {
    if (error.code !== 'DISCONNECTED') set({ notice: `${what}: ${error.message}${hintFor(error)}` })
  }

  /** Puts a changed summary in the list (or takes it out, once deleted) and in the feed. */
  const applySummary = (session: SessionSummary, details?: SessionDetails) => {
    const { projectDir, feed } = get()
    if (projectDir !== undefined) {
      set({ sessions: upsertSessions(get().sessions, [session], projectDir) })
    }
    if (feed?.sessionId !== session.id) return
    if (session.deletedAt !== null) get().closeSession()
    else if (details) dispatch(session.id, { type: 'details', details })
    else void refreshDetails(session.id)
  }

  const ops: StoreOps = {
    call,
    fail,
    pageEvents,
    pageTail,
    loadOlder,
    reachBack,
    loadNewer,
    loadLatest,
    trimFeed,
    refreshDetails,
    loadSessions,
    applySummary,
  }
  const store: ShellStore = createStore<ShellState>()(() => initialState(set, get, ops))
  // The cache reads the feed's events rather than paging them again.
  store.subscribe(({ feed, eventCache }) => {
    if (feed !== undefined) eventCache?.follow(feed)
  })

  const onReady = ({ bootId }: NotificationOf<'bridge/ready'>) => {
    const { connection, feed } = get()
    const isReconnect = connection.bootId !== undefined || connection.status === 'lost'
    set({
      connection: {
        status: 'ready',
        bootId,
        reconnects: connection.reconnects + (isReconnect ? 1 : 0),
        message: undefined,
      },
    })
    if (!isReconnect) return
    // Whatever happened while away is in the log: read it again rather than guess.
    void get().start()
    void loadSessions(null)
    if (feed) {
      void refreshDetails(feed.sessionId)
      void (feed.isLoading ? pageTail(feed.sessionId) : pageEvents(feed.sessionId, feed.coveredTo))
    }
  }

  const connect = () => {
    const disposers = [
      api.subscribe('bridge/ready', onReady),
      api.subscribe('session/event', ({ sessionId, event, prevSeq }) => {
        dispatch(sessionId, { type: 'event', event, prevSeq })
        // The open session may be showing this one's questions (it is one of its subagents).
        const open = get().feed?.sessionId
        if (open !== undefined && open !== sessionId)
          dispatch(open, { type: 'child-event', sessionId, event })
      }),
      api.subscribe('stream/delta', (delta) => dispatch(delta.sessionId, { type: 'delta', delta })),
      api.subscribe('approval/request', (request) => {
        dispatch(request.sessionId, { type: 'approval', request })
        // A subagent's question is shown in its parent's chat too.
        if (request.subagent) dispatch(request.subagent.sessionId, { type: 'approval', request })
      }),
      // Said until dismissed: the turn ended without a turn/end the feed could show.
      api.subscribe('session/failed', ({ message }) => set({ notice: message })),
      api.subscribe('sessions/changed', ({ sessionIds }) => {
        for (const sessionId of sessionIds) {
          void api.call('session/get', { sessionId }).then((result) => {
            if (result.ok) applySummary(result.value.session, result.value)
          })
        }
      }),
      api.subscribe('settings/changed', (view) => {
        if (view.endpoints.length > 0) set({ hasEndpoints: true })
      }),
    ]
    const heartbeat = setInterval(() => {
      if (globalThis.document.visibilityState === 'visible') void call('app/info', {})
    }, HEARTBEAT_MS)
    return () => {
      clearInterval(heartbeat)
      for (const dispose of disposers) dispose()
      if (gapTimer !== undefined) clearTimeout(gapTimer)
      gapTimer = undefined
    }
  }

  return { store, connect }
}

/** What to do about an error, when the code says more than the message. */
function hintFor(error: BridgeError): string {
  switch (error.code) {
    case 'CONFLICT':
      return ' (wait for the running turn to end, or stop it)'
    default:
      return ''
  }
}
