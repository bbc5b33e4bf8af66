/**
 * The sessions the runtime holds open for writing: one `Session` per id in this process, with
 * the writer lock, and its whitelisted events forwarded as `session/event` while it is open.
 */
import { isForwardedEventType } from '../../../../protocol/contract.js'
import type { NotificationOf, TopicName } from '../../../../protocol/contract.js'
import { eventEnvelope } from '../../../../protocol/events.js'
import { countsAsMessage, Session } from '../../log/index.js'
import type { LogEvent } from '../../log/index.js'
import type { Store } from '../../store/index.js'
import { StoreError } from '../../store/index.js'
import { HostError } from '../host.js'
import { repairOptions } from './subagents.js'

/** Sends a notification; must not throw (see `safeNotifier`). */
export type Notify = <T extends TopicName>(topic: T, payload: NotificationOf<T>) => void

/**
 * Wraps a sink so that a failing transport is reported and swallowed: forwarding runs inside
 * the session's commit and the agent's stream, and must never fail either.
 */
export function safeNotifier(sink: Notify): Notify {
  return (topic, payload) => {
    try {
      sink(topic, payload)
    } catch (error) {
      console.error(`[bridle] forwarding ${topic} failed:`, error)
    }
  }
}

const isCounted = (event: LogEvent): boolean => countsAsMessage(event.type, event.data)

export class OpenSessions<Extra extends object> {
  private readonly open = new Map<string, { readonly session: Session; readonly extra: Extra }>()
  private readonly stops = new Map<string, () => void>()

  constructor(
    private readonly store: Store,
    private readonly notify: Notify,
    /** The per-session state the owner keeps beside each open session. */
    private readonly fresh: (session: Session) => Extra,
  ) {}

  /**
   * The session and its state, opened (and repaired) on first use. Throws HostError NOT_FOUND
   * when there is no such session, CONFLICT when another process holds its writer lock.
   */
  get(sessionId: string): { readonly session: Session; readonly extra: Extra } {
    const known = this.open.get(sessionId)
    if (known) return known
    return this.hold(openForWriting(this.store, sessionId), this.fresh)
  }

  /**
   * Holds a session someone else opened for writing (a subagent's, opened by its parent's `task`
   * call) with the given state, forwarding its events, until `release`.
   */
  adopt(session: Session, extra: (session: Session) => Extra): { readonly extra: Extra } {
    if (this.open.has(session.id)) throw new Error(`session ${session.id} is already open`)
    return this.hold(session, extra)
  }

  /** Stops holding an adopted session without closing it (its opener closes it). */
  release(sessionId: string): void {
    this.stops.get(sessionId)?.()
    this.stops.delete(sessionId)
    this.open.delete(sessionId)
  }

  private hold(
    session: Session,
    extra: (session: Session) => Extra,
  ): { readonly session: Session; readonly extra: Extra } {
    const sessionId = session.id
    const entry = { session, extra: extra(session) }
    this.open.set(sessionId, entry)
    // What the previous forwarded event was, so a client can tell a real gap from the chunks
    // that are never forwarded.
    let prevSeq = lastForwardedSeq(session)
    this.stops.set(
      sessionId,
      session.subscribe((event) => {
        if (!isForwardedEventType(event.type)) return
        this.notify('session/event', { sessionId, event: eventEnvelope(event), prevSeq })
        prevSeq = event.seq
        // A message changes the session's count in every list that shows it, mid-turn too.
        if (isCounted(event)) this.notify('sessions/changed', { sessionIds: [sessionId] })
      }),
    )
    return entry
  }

  /** The state of an open session, without opening it. */
  peek(sessionId: string): Extra | undefined {
    return this.open.get(sessionId)?.extra
  }

  values(): Extra[] {
    return [...this.open.values()].map((entry) => entry.extra)
  }

  /**
   * Stops forwarding and closes one session, releasing its lock, so that its next use opens it
   * again from the log (and repairs what was left open). Closing commits what is pending; a
   * commit that fails again is the failure already reported, and is dropped.
   */
  close(sessionId: string): void {
    const entry = this.open.get(sessionId)
    if (!entry) return
    this.stops.get(sessionId)?.()
    this.stops.delete(sessionId)
    this.open.delete(sessionId)
    try {
      entry.session.close()
    } catch {
      // Reported by whoever heard of the failure first; the lock is released all the same.
    }
  }

  /** Stops forwarding and closes every session (committing what is pending, releasing locks). */
  closeAll(): void {
    const failures: unknown[] = []
    for (const [sessionId, { session }] of this.open) {
      this.stops.get(sessionId)?.()
      try {
        session.close()
      } catch (error) {
        // One session whose last commit failed must not keep the others' locks held.
        failures.push(error)
      }
    }
    this.open.clear()
    this.stops.clear()
    if (failures.length > 0) throw new AggregateError(failures, 'some sessions failed to close')
  }
}

/** The seq of the session's last event of a forwarded type, or -1. */
function lastForwardedSeq(session: Session): number {
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const [event] = session.slice(seq, seq + 1)
    if (event && isForwardedEventType(event.type)) return seq
  }
  return -1
}

function openForWriting(store: Store, sessionId: string): Session {
  if (!store.getSession(sessionId)) throw new HostError('NOT_FOUND', `no session ${sessionId}`)
  try {
    return Session.open(store, sessionId, repairOptions(store))
  } catch (error) {
    if (error instanceof StoreError && error.code === 'NO_SUCH_SESSION')
      throw new HostError('NOT_FOUND', `no session ${sessionId}`)
    if (error instanceof StoreError && error.code === 'SESSION_LOCKED') {
      throw new HostError(
        'CONFLICT',
        `another Bridle process has session ${sessionId} open (${error.message})`,
      )
    }
    throw error
  }
}
