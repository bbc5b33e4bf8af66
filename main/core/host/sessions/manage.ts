import type { ParamsOf, SessionSummary } from '../../../../protocol/contract.js'
import { forkSession } from '../../log/fork.js'
import { Session } from '../../log/session.js'
import { HostError } from '../host.js'
import type { RecentProjects } from './projects.js'
import { resolveProjectDir } from './projects.js'
import type { HostContext, RuntimeService, SettingsService } from '../services.js'
import type { SessionSummaries } from './summary.js'

/**
 * The session changes the views offer: create, rename, trash, restore, fork. Each announces
 * `sessions/changed` with the ids it touched, after the change is durable.
 */
export class SessionWrites {
  private readonly clock: () => number

  constructor(
    private readonly ctx: HostContext,
    private readonly deps: {
      readonly settings: SettingsService
      readonly runtime: RuntimeService
      readonly clock?: () => number
    },
    private readonly summaries: SessionSummaries,
    private readonly recent: RecentProjects,
  ) {
    this.clock = deps.clock ?? Date.now
  }

  /**
   * A new session in a real, existing folder, with the endpoint and model given or else the
   * configured defaults (read from config.json only: nothing is asked of the network). Both go
   * into `session/created`. The creating writer is closed at once: the runtime opens the
   * session when something appends to it, so there is still one writer per session.
   */
  create(params: ParamsOf<'session/create'>): SessionSummary {
    const projectDir = resolveProjectDir(params.projectDir)
    const { endpoint, model } = defaultsFor(this.deps.settings.defaults(projectDir), params)
    const title = params.title?.trim()
    const session = Session.create(this.ctx.store, {
      projectDir,
      ...(title ? { title } : {}),
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(model === undefined ? {} : { model }),
      clock: this.clock,
    })
    session.close()
    this.recent.record(projectDir)
    return this.changed(session.id)
  }

  /**
   * Logs `session/title` through the session's writer and sets the row's title in the same
   * transaction, so the list and the log never disagree. An empty title clears it.
   */
  rename(sessionId: string, title: string): SessionSummary {
    this.summaries.row(sessionId)
    const trimmed = title.trim()
    const session = this.deps.runtime.session(sessionId)
    const { store } = this.ctx
    store.write(() => {
      const event = session.append('session/title', { title: trimmed })
      session.flushSync()
      store.setTitle(sessionId, trimmed === '' ? null : trimmed, event.at)
    })
    return this.changed(sessionId)
  }

  /** Switches the session's model for its next turn (RuntimeService.switchModel). */
  async setModel(params: ParamsOf<'session/setModel'>): Promise<SessionSummary> {
    this.summaries.row(params.sessionId)
    await this.deps.runtime.switchModel(params.sessionId, {
      ...(params.endpointId === undefined ? {} : { endpointId: params.endpointId }),
      model: params.model,
    })
    this.summaries.setModel(params.sessionId, params.model)
    return this.changed(params.sessionId)
  }

  /** Moves a session (not its forks) to the trash; a running one is refused with CONFLICT. */
  trash(sessionId: string): SessionSummary {
    const row = this.summaries.row(sessionId)
    if (this.deps.runtime.isRunning(sessionId)) {
      throw new HostError(
        'CONFLICT',
        `session ${sessionId} is running a turn; stop it before deleting the session`,
      )
    }
    if (row.deletedAt === null) this.ctx.store.setDeleted(sessionId, this.clock())
    return this.changed(sessionId)
  }

  restore(sessionId: string): SessionSummary {
    const row = this.summaries.row(sessionId)
    if (row.deletedAt !== null) this.ctx.store.setDeleted(sessionId, null)
    return this.changed(sessionId)
  }

  /**
   * Forks through the core (copy-on-write, O(1) in the parent's size). `atSeq` must be 1..the
   * parent's length: the child keeps events 0..atSeq-1. The title goes on the row only, as
   * `forkSession` does: logging it would mean opening the child's writer, which reads the
   * whole inherited history.
   */
  fork(sessionId: string, atSeq: number, title: string | undefined): SessionSummary {
    const parent = this.summaries.row(sessionId)
    if (atSeq < 1 || atSeq > parent.nextSeq) {
      throw new HostError(
        'INVALID_PARAMS',
        `cannot fork session ${sessionId} at seq ${atSeq}: it has ${parent.nextSeq} events, so the fork point must be 1..${parent.nextSeq}`,
      )
    }
    const trimmed = title?.trim()
    const childId = forkSession(this.ctx.store, sessionId, atSeq, {
      clock: this.clock,
      ...(trimmed ? { title: trimmed } : {}),
    })
    return this.changed(childId)
  }

  private changed(sessionId: string): SessionSummary {
    this.ctx.notify('sessions/changed', { sessionIds: [sessionId] })
    return this.summaries.get(sessionId)
  }
}

/**
 * The endpoint and model a new session records: the ones asked for, else config.json's
 * `defaultEndpoint` and `defaultModel`. Nothing else is guessed here (no "only endpoint", no
 * server listing): what is not recorded is resolved by the settings when the first turn runs,
 * which also knows endpoints config.json does not hold (`bridle serve --base-url`).
 */
/** What was asked for, else the settings' defaults (the model only with its own endpoint). */
function defaultsFor(
  defaults: { readonly endpointId?: string; readonly model?: string },
  params: ParamsOf<'session/create'>,
): { endpoint: string | undefined; model: string | undefined } {
  const endpoint = params.endpointId ?? defaults.endpointId
  const isDefaultEndpoint = endpoint === defaults.endpointId
  return { endpoint, model: params.model ?? (isDefaultEndpoint ? defaults.model : undefined) }
}
