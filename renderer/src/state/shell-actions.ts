/**
 * The shell store's actions: what the UI asks for (open a project, a session, send, fork...),
 * each a few bridge calls whose results go back into the state. Split from shell-store.ts,
 * which owns the state's shape, the feed's syncing and the notifications.
 */
import type { BridgeError, BridleApi, SessionSummary } from '../../../protocol/contract'
import { EventCache, pageLoader } from './event-cache'
import type { SessionDetails } from './feed-reducer'
import { initialFeed } from './feed-reducer'
import { neighbourOf, upsertSessions } from './session-tree'
import type { ShellState } from './shell-store'

const PROJECT_KEY = 'bridle.project'

/** The store's internals the actions use (built in `createShellStore`). */
export interface StoreOps {
  readonly call: BridleApi['call']
  readonly fail: (what: string, error: BridgeError) => void
  readonly pageEvents: (sessionId: string, fromSeq: number) => Promise<void>
  /** Reads the feed's last page, or the page below `toSeq`. */
  readonly pageTail: (sessionId: string, toSeq?: number, limit?: number) => Promise<void>
  readonly loadOlder: () => Promise<void>
  readonly reachBack: (seq: number) => Promise<void>
  readonly loadNewer: () => Promise<void>
  readonly loadLatest: () => Promise<void>
  readonly trimFeed: (fromSeq: number, toSeq: number) => void
  readonly refreshDetails: (sessionId: string) => Promise<void>
  readonly loadSessions: (cursor: string | null) => Promise<void>
  readonly applySummary: (session: SessionSummary, details?: SessionDetails) => void
}

export type SetState = (partial: Partial<ShellState>) => void

export function initialState(set: SetState, get: () => ShellState, ops: StoreOps): ShellState {
  const { call, fail, pageTail, refreshDetails, loadSessions, applySummary } = ops

  const loadProjects = async () => {
    const result = await call('project/recent', { limit: 20 })
    if (!result.ok) return fail('Could not read the recent projects', result.error)
    const { projects } = result.value
    const remembered = readProject()
    const chosen =
      get().projectDir ??
      projects.find((p) => p.path === remembered)?.path ??
      projects[0]?.path ??
      undefined
    set({ projects })
    if (chosen !== undefined && chosen !== get().projectDir) get().selectProject(chosen)
  }

  const loadSettings = async () => {
    const result = await call('settings/get', {})
    // Without settings the normal layout still works, and the settings panel shows the error.
    set({ hasEndpoints: result.ok ? result.value.endpoints.length > 0 : true })
  }

  return {
    connection: { status: 'connecting', bootId: undefined, reconnects: 0, message: undefined },
    hasEndpoints: undefined,
    projects: [],
    projectDir: undefined,
    sessions: [],
    sessionsCursor: null,
    sessionsLoading: false,
    search: { query: '', hits: [], isSearching: false },
    feed: undefined,
    eventCache: undefined,
    selectedSeq: undefined,
    // The inspector waits until asked for: the chat is what a new user came for.
    drawer: { isOpen: false, panel: 'timeline' },
    page: 'chat',
    sidebar: { isOpen: true, isSheetOpen: false },
    isImportOpen: false,
    restore: undefined,
    exportSessionId: undefined,
    notice: undefined,

    async start() {
      await Promise.all([loadSettings(), loadProjects()])
    },

    async openProject(path, allowHome) {
      const result = await call('project/open', {
        ...(path === undefined ? {} : { path }),
        ...(allowHome === true ? { allowHome } : {}),
      })
      if (!result.ok) {
        const message =
          result.error.code === 'UNSUPPORTED'
            ? 'type the folder path: the browser cannot show a folder picker.'
            : result.error.message
        set({ notice: `Could not open the project: ${message}` })
        return
      }
      const { project, homeWarning } = result.value
      // The home folder (or `/`) opens only once the user read why it is not a project.
      if (homeWarning !== undefined) {
        if (window.confirm(`${homeWarning.message}\n\nOpen it anyway?`)) {
          await get().openProject(homeWarning.path, true)
        }
        return
      }
      if (!project) return
      set({ projects: [project, ...get().projects.filter((p) => p.path !== project.path)] })
      get().selectProject(project.path)
    },

    selectProject(path) {
      if (path === get().projectDir) return
      writeProject(path)
      set({ projectDir: path, sessions: [], sessionsCursor: null, feed: undefined })
      void loadSessions(null)
    },

    async loadMoreSessions() {
      const { sessionsCursor, sessionsLoading } = get()
      if (sessionsCursor !== null && !sessionsLoading) await loadSessions(sessionsCursor)
    },

    async setSearch(query) {
      const trimmed = query.trim()
      if (trimmed === '') {
        set({ search: { query, hits: [], isSearching: false } })
        return
      }
      set({ search: { query, hits: get().search.hits, isSearching: true } })
      const result = await call('session/search', { query: trimmed, limit: 50 })
      // Answers can come back out of order: keep only the one for what the box says now.
      if (get().search.query !== query) return
      if (!result.ok) {
        set({ search: { query, hits: [], isSearching: false } })
        return fail('Search failed', result.error)
      }
      set({ search: { query, hits: result.value.hits, isSearching: false } })
    },

    async openSession(sessionId, selectSeq) {
      if (get().feed?.sessionId === sessionId) {
        set({ selectedSeq: selectSeq ?? get().selectedSeq })
        return
      }
      set({
        feed: initialFeed(sessionId),
        eventCache: new EventCache(sessionId, pageLoader(call, sessionId)),
        selectedSeq: selectSeq,
      })
      await Promise.all([refreshDetails(sessionId), pageTail(sessionId)])
      // A search hit (or a link) may name a message older than the opening page.
      if (selectSeq !== undefined) await ops.reachBack(selectSeq)
    },

    loadOlder: ops.loadOlder,
    reachBack: ops.reachBack,
    loadNewer: ops.loadNewer,
    loadLatest: ops.loadLatest,
    trimFeed: ops.trimFeed,

    closeSession() {
      set({ feed: undefined, eventCache: undefined, selectedSeq: undefined })
    },

    async createSession(title) {
      const { projectDir } = get()
      if (projectDir === undefined) {
        set({ notice: 'Open a project folder first: sessions work inside a project.' })
        return undefined
      }
      const result = await call(
        'session/create',
        title === undefined ? { projectDir } : { projectDir, title },
      )
      if (!result.ok) {
        fail('Could not create a session', result.error)
        return undefined
      }
      const session = result.value
      set({ sessions: upsertSessions(get().sessions, [session], projectDir) })
      await get().openSession(session.id)
      return session.id
    },

    async renameSession(sessionId, title) {
      const result = await call('session/rename', { sessionId, title })
      if (!result.ok) return fail('Could not rename the session', result.error)
      applySummary(result.value)
    },

    async deleteSession(sessionId) {
      // The open session leaving must not leave a blank pane: open its neighbour in the tree.
      const wasOpen = get().feed?.sessionId === sessionId
      const next = wasOpen ? neighbourOf(get().sessions, sessionId) : undefined
      const result = await call('session/delete', { sessionId })
      if (!result.ok) return fail('Could not delete the session', result.error)
      applySummary(result.value)
      // applySummary closed it; unless another session was opened meanwhile, open the neighbour.
      if (!wasOpen || get().feed !== undefined) return
      if (next !== undefined) await get().openSession(next)
    },

    async openImported(session) {
      // The host recorded the folder as a recent project; opening it puts it in the picker.
      if (session.projectDir !== get().projectDir) await get().openProject(session.projectDir)
      applySummary(session)
      await get().openSession(session.id)
    },

    async forkSession(sessionId, atSeq) {
      const result = await call('session/fork', { sessionId, atSeq })
      if (!result.ok) return fail('Could not fork the session', result.error)
      applySummary(result.value)
      await get().openSession(result.value.id)
    },

    async send(text, attachments) {
      // A first message starts a session; the host titles it from its first words (not as a
      // rename, which would keep the model's title from replacing them).
      const sessionId = get().feed?.sessionId ?? (await get().createSession())
      if (sessionId === undefined) return false
      const result = await call('turn/send', {
        sessionId,
        requestId: crypto.randomUUID(),
        text,
        ...(attachments === undefined || attachments.length === 0
          ? {}
          : { attachments: [...attachments] }),
      })
      if (!result.ok) {
        fail('Could not send the message', result.error)
        return false
      }
      if (!result.value.accepted) {
        set({ notice: `The message was not sent: ${result.value.reason ?? 'refused'}` })
      }
      // Not accepted still means logged (the turn says why): only a refused call gave nothing back.
      return true
    },

    async stop() {
      const sessionId = get().feed?.sessionId
      if (sessionId === undefined) return
      const result = await call('turn/cancel', { sessionId })
      if (!result.ok) fail('Could not stop the turn', result.error)
    },

    selectSeq(seq) {
      set({ selectedSeq: seq })
      // The chat shows the selected message: one older than its pages are read back to it.
      if (seq !== undefined) void ops.reachBack(seq)
    },

    showPanel(panel) {
      if (panel === 'settings') get().openSettings()
      else set({ drawer: { isOpen: true, panel }, page: 'chat' })
    },

    openSettings() {
      set({ page: 'settings', sidebar: { ...get().sidebar, isSheetOpen: false } })
    },

    closeSettings() {
      set({ page: 'chat' })
    },

    toggleSidebar() {
      const { sidebar } = get()
      set({ sidebar: { ...sidebar, isOpen: !sidebar.isOpen } })
    },

    setSidebarSheet(isOpen) {
      set({ sidebar: { ...get().sidebar, isSheetOpen: isOpen } })
    },

    setImportOpen(isOpen) {
      set(
        isOpen
          ? { isImportOpen: true, sidebar: { ...get().sidebar, isSheetOpen: false } }
          : { isImportOpen: false },
      )
    },

    openRestore(request) {
      set({ restore: request, sidebar: { ...get().sidebar, isSheetOpen: false } })
    },

    closeRestore() {
      set({ restore: undefined })
    },

    setExportSession(sessionId) {
      set(
        sessionId === undefined
          ? { exportSessionId: undefined }
          : { exportSessionId: sessionId, sidebar: { ...get().sidebar, isSheetOpen: false } },
      )
    },

    toggleDrawer() {
      const { drawer } = get()
      set({ drawer: { ...drawer, isOpen: !drawer.isOpen } })
    },

    setEndpointsConfigured() {
      set({ hasEndpoints: true })
    },

    dismissNotice() {
      set({ notice: undefined })
    },
  }
}

/** A session title from its first message: the first line, cut at a word near 60 chars. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? ''
  if (line.length <= 60) return line
  const cut = line.slice(0, 60)
  const space = cut.lastIndexOf(' ')
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`
}

function readProject(): string | undefined {
  try {
    return globalThis.localStorage.getItem(PROJECT_KEY) ?? undefined
  } catch {
    // Storage can be unavailable (a sandboxed page); the first recent project is used instead.
    return undefined
  }
}

function writeProject(path: string): void {
  try {
    globalThis.localStorage.setItem(PROJECT_KEY, path)
  } catch {
    // Not remembering the choice is harmless: the recent list still has it.
  }
}
