import type { LogEvent } from '../../../protocol/events.js'

/** A file's content at some point: a snapshot hash, no file, or not known (and why). */
export type FileState =
  | { readonly kind: 'file'; readonly hash: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unknown'; readonly reason: string }

/**
 * One thing the log says about a path's content from `seq` on. `isBefore`: the content the turn
 * found before it first touched the path, placed at the turn's `turn/start` (the turn's changes
 * count from its `workspace/diff`). `isGuess`: a before-state the turn did not know (a command
 * changed the file unseen); an earlier known state is trusted over it.
 */
interface Observation {
  readonly seq: number
  readonly state: FileState
  readonly isBefore: boolean
  readonly isGuess: boolean
}

const ABSENT: FileState = { kind: 'absent' }
/** How deep subagents' own subagents are followed (the default depth limit is 1). */
const MAX_CHILD_DEPTH = 8
const file = (hash: string): FileState => ({ kind: 'file', hash })

/**
 * What a session's history says about the content of every file its turns changed, at every
 * point: built from the `workspace/diff` of each turn (the content before the turn first touched
 * a file, and at the turn's end), and from the restores logged since (`workspace/restored`,
 * `workspace/restore-undone`). `events` is the whole history, a fork's ancestors' events before
 * the fork point included, in seq order.
 *
 * Granularity: exact at turn ends and after each call that changed files (the `calls` of the
 * turn's `workspace/diff`: a call's changes count from its `tool/result`). A point inside a turn
 * before its first such call gives the files as the turn found them; a point between turns, as
 * the last turn before it left them. A turn logged without `calls` (an older log) counts as a
 * whole from its `workspace/diff`.
 */
export class FileHistory {
  private readonly byPath = new Map<string, Observation[]>()

  /**
   * `childEvents` reads a subagent's own events (undefined when it cannot be read): the files a
   * `task` call's child changed count as changed by that call, from the parent's
   * `subagent/started` (before) to the call's `tool/result` (after), nested children included.
   */
  static of(
    events: readonly LogEvent[],
    childEvents?: (sessionId: string) => readonly LogEvent[] | undefined,
    depth = 0,
  ): FileHistory {
    const history = new FileHistory()
    const turnStarts = new Map<number, number>()
    /** The seq of each result, by `turn:step:callId` (a call id is unique within a step). */
    const results = new Map<string, number>()
    /** The child each running `task` call started, by the same key, and where it started. */
    const children = new Map<string, { sessionId: string; seq: number }>()
    for (const event of events) {
      switch (event.type) {
        case 'turn/start':
          turnStarts.set(event.turn, event.seq)
          break
        case 'subagent/started':
          children.set(`${event.turn}:${event.step}:${event.data.callId}`, {
            sessionId: String(event.data.sessionId),
            seq: event.seq,
          })
          break
        case 'tool/result': {
          const key = `${event.turn}:${event.step}:${event.data.callId}`
          results.set(key, event.seq)
          const child = children.get(key)
          const own =
            child && childEvents && depth < MAX_CHILD_DEPTH
              ? childEvents(child.sessionId)
              : undefined
          if (child && own)
            history.addChild(FileHistory.of(own, childEvents, depth + 1), child.seq, event.seq)
          break
        }
        case 'workspace/diff': {
          const startSeq = turnStarts.get(event.turn) ?? event.seq
          for (const entry of event.data.files)
            history.add(entry.path, { ...beforeOf(entry, event.turn), seq: startSeq })
          for (const call of event.data.calls ?? []) {
            const seq = results.get(`${event.turn}:${call.step}:${call.callId}`)
            if (seq === undefined) continue
            for (const entry of call.files) {
              history.add(entry.path, {
                seq,
                state: callStateOf(entry, call.callId),
                isBefore: false,
                isGuess: false,
              })
            }
          }
          for (const entry of event.data.files) {
            history.add(entry.path, {
              seq: event.seq,
              state: afterOf(entry, event.turn),
              isBefore: false,
              isGuess: false,
            })
          }
          break
        }
        case 'workspace/restored':
        case 'workspace/restore-undone':
          for (const { path, hash } of event.data.written)
            history.add(path, {
              seq: event.seq,
              state: file(hash),
              isBefore: false,
              isGuess: false,
            })
          for (const path of event.data.removed)
            history.add(path, { seq: event.seq, state: ABSENT, isBefore: false, isGuess: false })
          break
        default:
          break
      }
    }
    // A child's observations were added when its call ended, before its parent turn's own.
    for (const list of history.byPath.values()) list.sort((a, b) => a.seq - b.seq)
    return history
  }

  /** Every project-relative path some turn or restore of the history changed, sorted. */
  paths(): string[] {
    return [...this.byPath.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  }

  /**
   * The content of `path` right after event `seq`: the latest state at or before it (a guessed
   * before-state yields to a known earlier one); with none, the state the first later turn found
   * before it touched the file. `unknown` when no copy of that content was kept.
   */
  stateAt(path: string, seq: number): FileState {
    const observations = this.byPath.get(path) ?? []
    let guess: FileState | undefined
    for (let i = observations.length - 1; i >= 0; i--) {
      const observation = observations[i]
      if (observation === undefined || observation.seq > seq) continue
      if (observation.isGuess) {
        guess ??= observation.state
        continue
      }
      return observation.state
    }
    if (guess) return guess
    const next = observations.find((observation) => observation.seq > seq)
    if (next?.isBefore) return next.state
    return { kind: 'unknown', reason: 'the history says nothing of it at that point' }
  }

  /** Whether the history says anything of `path` at or before `seq` (else a later turn may). */
  hasSeen(path: string, seq: number): boolean {
    return (this.byPath.get(path) ?? []).some((observation) => observation.seq <= seq)
  }

  /** The content the session last saw: the state after its last event. */
  latest(path: string): FileState {
    return this.stateAt(path, Number.MAX_SAFE_INTEGER)
  }

  /** A child's net effect on each file: as it found it at `startSeq`, as it left it at `endSeq`. */
  private addChild(child: FileHistory, startSeq: number, endSeq: number): void {
    for (const [path, observations] of child.byPath) {
      const first = observations[0]
      if (first === undefined) continue
      this.add(path, { ...first, seq: startSeq, isBefore: true })
      this.add(path, { seq: endSeq, state: child.latest(path), isBefore: false, isGuess: false })
    }
  }

  private add(path: string, observation: Observation): void {
    const list = this.byPath.get(path)
    if (list) list.push(observation)
    else this.byPath.set(path, [observation])
  }
}

type DiffEntry = Extract<LogEvent, { type: 'workspace/diff' }>['data']['files'][number]

function beforeOf(entry: DiffEntry, turn: number): Omit<Observation, 'seq'> {
  if (entry.status === 'added') return { state: ABSENT, isBefore: true, isGuess: false }
  if (entry.beforeHash !== undefined)
    return { state: file(entry.beforeHash), isBefore: true, isGuess: false }
  return {
    state: {
      kind: 'unknown',
      reason: `its content before turn ${turn} is unknown (a command changed it, and it was too large to copy first)`,
    },
    isBefore: true,
    isGuess: true,
  }
}

type CallEntry = NonNullable<
  Extract<LogEvent, { type: 'workspace/diff' }>['data']['calls']
>[number]['files'][number]

function callStateOf(entry: CallEntry, callId: string): FileState {
  if (entry.hash !== undefined) return file(entry.hash)
  if (entry.isAbsent === true) return ABSENT
  return {
    kind: 'unknown',
    reason: `no copy of its content right after call ${callId} was kept (too large, or the call changed too many files)`,
  }
}

function afterOf(entry: DiffEntry, turn: number): FileState {
  if (entry.status === 'deleted') return ABSENT
  if (entry.afterHash !== undefined) return file(entry.afterHash)
  return {
    kind: 'unknown',
    reason: `no copy of its content at the end of turn ${turn} was kept (too large, or logged before copies were kept)`,
  }
}
