import { homedir } from 'node:os'
import { join } from 'node:path'
import { createRedactor, exportTranscript } from '../../export/index.js'
import { LogError } from '../../log/errors.js'
import { StoreError } from '../../store/index.js'
import { containsHome, homeProjectWarning } from '../../tools/home-files.js'
import { SnapshotStore } from '../../workspace/snapshot.js'
import { HostError } from '../host.js'
import type { HostHandlers } from '../host.js'
import { RecentProjects, resolveProjectDir } from './projects.js'
import type {
  HandlerGroup,
  HostContext,
  RuntimeService,
  SessionMethods,
  SettingsService,
} from '../services.js'
import { filesExist } from './project-files.js'
import { ProjectFileLister } from './file-list.js'
import { readEventsPage, searchSessions } from './events.js'
import { SessionImports } from './import.js'
import { SessionWrites } from './manage.js'
import { readOutput } from './output.js'
import { requestView } from './request.js'
import { SessionSummaries } from './summary.js'
import { SNAPSHOTS_DIR, withPatch, workspaceDiff } from './workspace.js'

export interface SessionDeps {
  readonly settings: SettingsService
  readonly runtime: RuntimeService
  /** Epoch milliseconds for trash and recent-project times; a port so tests can fix time. */
  readonly clock?: () => number
  /** The user's home folder, where other tools keep the sessions `import/scan` lists. */
  readonly userHome?: string
}

/**
 * Projects and the session views: lists, the tree, events, forks, search, request views,
 * spilled outputs and turn diffs. Reads go straight to the store (no writer is opened to look);
 * every write to a session's log goes through `runtime.session(id)`, the one writer per session
 * in this process. Creations and changes are announced as `sessions/changed`.
 */
export function sessionHandlers(ctx: HostContext, deps: SessionDeps): HandlerGroup<SessionMethods> {
  const { store } = ctx
  const summaries = new SessionSummaries(store, (id) => deps.runtime.isRunning(id))
  const recent = new RecentProjects(ctx.home, deps.clock)
  const writes = new SessionWrites(ctx, deps, summaries, recent)
  const lister = new ProjectFileLister(deps.clock)
  const imports = new SessionImports(
    ctx,
    deps.userHome ?? homedir(),
    summaries,
    recent,
    deps.clock ?? Date.now,
  )
  const diffs = {
    store,
    snapshots: new SnapshotStore(join(ctx.home, SNAPSHOTS_DIR)),
  }

  const handlers: HandlerGroup<SessionMethods> = {
    'project/open': async ({ path, allowHome }) => {
      const chosen = path ?? (await pickFolder(ctx))
      if (chosen === undefined) return { project: null }
      const dir = resolveProjectDir(chosen)
      // The home folder (or `/`) is opened only once the user saw why it is not a project.
      if (allowHome !== true && containsHome(dir, deps.userHome ?? homedir())) {
        return { project: null, homeWarning: { path: dir, message: homeProjectWarning(dir) } }
      }
      return { project: recent.record(dir) }
    },
    'project/recent': ({ limit }) => ({ projects: recent.list(limit ?? 10) }),

    'session/list': ({ cursor, limit, projectDir, includeDeleted }) => {
      const page = store.listSessions({
        cursor: cursor ?? null,
        limit: limit ?? 50,
        includeDeleted: includeDeleted ?? false,
        ...(projectDir === undefined ? {} : { projectDir: projectFilter(projectDir) }),
      })
      return { items: page.items.map((row) => summaries.of(row)), nextCursor: page.nextCursor }
    },
    'session/tree': ({ projectDir, includeDeleted }) => ({
      sessions: store
        .listTree({
          includeDeleted: includeDeleted ?? false,
          ...(projectDir === undefined ? {} : { projectDir: projectFilter(projectDir) }),
        })
        .map((row) => summaries.of(row)),
    }),
    'session/get': ({ sessionId }) => {
      const session = summaries.get(sessionId)
      const contextWindow = deps.runtime.contextWindow(sessionId)
      const profile = deps.runtime.profile(sessionId)
      return {
        session,
        pendingApprovals: [...deps.runtime.pendingApprovals(sessionId)],
        codeMode: summaries.codeMode(sessionId),
        ...(contextWindow === undefined ? {} : { contextWindow }),
        ...(profile === undefined ? {} : { profile }),
      }
    },

    'session/create': (params) => writes.create(params),
    'session/rename': ({ sessionId, title }) => writes.rename(sessionId, title),
    'session/setModel': (params) => writes.setModel(params),
    'session/delete': ({ sessionId }) => writes.trash(sessionId),
    'session/restore': ({ sessionId }) => writes.restore(sessionId),
    'session/fork': ({ sessionId, atSeq, title }) => writes.fork(sessionId, atSeq, title),

    'import/scan': () => imports.scan(),
    'import/inspect': ({ path }) => imports.inspect(path),
    'import/run': ({ path, projectDir }) => imports.run(path, projectDir),

    'session/events': (params) => readEventsPage(store, summaries, params),
    'session/search': (params) => searchSessions(store, summaries, params),
    'session/request': ({ sessionId, startSeq }) => {
      summaries.row(sessionId)
      return requestView(store, sessionId, startSeq)
    },
    'output/read': ({ outputRef, offset, length }) =>
      readOutput(ctx.home, outputRef, offset ?? 0, length ?? 256 * 1024),
    'workspace/diff': ({ sessionId, turn }) => workspaceDiff(diffs, summaries.row(sessionId), turn),
    'session/export': ({ sessionId, format }) => {
      summaries.row(sessionId)
      return exportTranscript(store, sessionId, format, {
        redact: createRedactor({ secrets: deps.settings.knownSecrets?.() ?? [], home: homedir() }),
        patchOf: (file) => withPatch(diffs.snapshots, file),
        now: (deps.clock ?? Date.now)(),
      })
    },
    'project/files-exist': ({ sessionId, paths }) =>
      filesExist(summaries.row(sessionId).projectDir, paths),
    'project/files': (params) =>
      lister.list(
        'sessionId' in params
          ? summaries.row(params.sessionId).projectDir
          : resolveProjectDir(params.projectDir),
      ),
  }
  return withErrorCodes(handlers)
}

/** The Electron picker, or UNSUPPORTED where there is none (serve mode). */
async function pickFolder(ctx: HostContext): Promise<string | undefined> {
  if (!ctx.pickFolder) {
    throw new HostError('UNSUPPORTED', 'in serve mode, give the folder path')
  }
  return ctx.pickFolder()
}

/** Sessions store their folder's real path; a filter given another way still matches. */
function projectFilter(projectDir: string): string {
  try {
    return resolveProjectDir(projectDir)
  } catch {
    // The folder is gone (or was never one): its sessions are still listed under the path given.
    return projectDir
  }
}

/**
 * Gives the core's typed failures their bridge codes, in one place, so no handler has to: an
 * unknown session is NOT_FOUND, a writer lock held elsewhere is CONFLICT, a forged cursor or a
 * fork point out of range is INVALID_PARAMS. Anything else stays as thrown (INTERNAL).
 */
function withErrorCodes<M extends SessionMethods>(handlers: HandlerGroup<M>): HandlerGroup<M> {
  const wrapped = {} as HandlerGroup<M>
  for (const method of Object.keys(handlers) as M[]) {
    const handler = handlers[method] as (params: unknown, call: unknown) => unknown
    const guarded = async (params: unknown, call: unknown) => {
      try {
        return await handler(params, call)
      } catch (error) {
        throw toHostError(error)
      }
    }
    wrapped[method] = guarded as HostHandlers[M]
  }
  return wrapped
}

function toHostError(error: unknown): unknown {
  if (error instanceof StoreError) {
    switch (error.code) {
      case 'NO_SUCH_SESSION':
        return new HostError('NOT_FOUND', error.message)
      case 'SESSION_LOCKED':
        return new HostError('CONFLICT', error.message)
      case 'INVALID_CURSOR':
        return new HostError('INVALID_PARAMS', error.message)
      default:
        return error
    }
  }
  if (error instanceof LogError && error.code === 'INVALID_FORK') {
    return new HostError('INVALID_PARAMS', error.message)
  }
  return error
}
