import { LogError } from './errors.js'
import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../../../protocol/events.js'
import type { EventDataInput, EventType, JsonValue, LogEvent } from '../../../protocol/events.js'

type CallStatus = 'proposed' | 'called' | 'done'

/** What `process/started` recorded of a call's command. */
export type CallProcess = EventDataInput<'process/started'>

interface CallState {
  readonly name: string
  status: CallStatus
  process?: CallProcess
  /** The session `subagent/started` named for this call (a `task` call's child). */
  subagent?: string
  /** The running call this one was made from (a program's inner call), if linked. */
  readonly parent?: string
}

export interface PendingCall {
  readonly callId: string
  readonly name: string
  readonly isStarted: boolean
  readonly process?: CallProcess
  /** The child session the call started, when it is a subagent's `task` call. */
  readonly subagent?: string
  readonly parent?: string
}

interface StreamBlock {
  readonly kind: 'text' | 'reasoning'
  text: string
}

interface State {
  lastTurn: number
  isTurnOpen: boolean
  lastStep: number
  isStepOpen: boolean
  isRequestStarted: boolean
  hasMessage: boolean
  /** Text and reasoning streamed since the step's last request/start, merged into blocks. */
  stream: StreamBlock[]
  /**
   * The calls the step's assistant message proposed, in the model's order, then the linked calls
   * their programs made, as they came.
   */
  calls: Map<string, CallState>
}

/** An event the log must add to close what a crash or a fork left open. */
export interface SyntheticEvent {
  readonly type: EventType
  readonly data: EventDataInput<EventType>
  /** One line for `recovery/repaired`: what was synthesised and why. */
  readonly what: string
}

const STEP_SCOPED = new Set<EventType>([
  'request/header',
  'request/start',
  'assistant/chunk',
  'assistant/message',
  'tool/call',
  'tool/result',
  'approval/requested',
  'approval/decided',
  'process/started',
  'subagent/started',
  'deliverable/present',
])

const fresh = (): State => ({
  lastTurn: 0,
  isTurnOpen: false,
  lastStep: 0,
  isStepOpen: false,
  isRequestStarted: false,
  hasMessage: false,
  stream: [],
  calls: new Map(),
})

const enclosure = (message: string) => new LogError('ENCLOSURE', message)
const pairing = (message: string) => new LogError('PAIRING', message)

/**
 * The turn/step/tool-call state machine of a session (docs/ARCHITECTURE.md 3.3). `check`
 * refuses an event that would break an invariant before anything is written; `apply` advances
 * the state after the event is accepted; `closes` lists what must be synthesised to close
 * whatever is open (crash repair and forks use the same rules).
 */
export class Lifecycle {
  private state: State = fresh()

  get turn(): number {
    return this.state.isTurnOpen ? this.state.lastTurn : 0
  }
  get step(): number {
    return this.state.isStepOpen ? this.state.lastStep : 0
  }
  get isTurnOpen(): boolean {
    return this.state.isTurnOpen
  }
  get isStepOpen(): boolean {
    return this.state.isStepOpen
  }
  get lastTurn(): number {
    return this.state.lastTurn
  }
  /** Calls of the open step not yet answered, in the model's order, with their status. */
  pendingCalls(): PendingCall[] {
    return [...this.state.calls]
      .filter(([, call]) => call.status !== 'done')
      .map(([callId, call]) => ({
        callId,
        name: call.name,
        isStarted: call.status === 'called',
        ...(call.process ? { process: call.process } : {}),
        ...(call.subagent === undefined ? {} : { subagent: call.subagent }),
        ...(call.parent === undefined ? {} : { parent: call.parent }),
      }))
  }

  /** The tool name of a call proposed in the open step. */
  callName(callId: string): string | undefined {
    return this.state.calls.get(callId)?.name
  }

  /** Throws unless `type` may come next; returns the turn and step the event belongs to. */
  check(type: EventType, data: unknown): { turn: number; step: number } {
    const s = this.state
    if (STEP_SCOPED.has(type) && !s.isStepOpen) {
      throw enclosure(`${type} must be inside a step, and no step is open`)
    }
    switch (type) {
      case 'turn/start':
        if (s.isTurnOpen)
          throw enclosure(`turn ${s.lastTurn} is still open; end it before starting another`)
        return { turn: s.lastTurn + 1, step: 0 }
      case 'turn/end':
        if (!s.isTurnOpen) throw enclosure('turn/end without an open turn')
        if (s.isStepOpen)
          throw enclosure(`step ${s.lastStep} is still open; end it before the turn`)
        return { turn: s.lastTurn, step: 0 }
      case 'step/start':
        if (!s.isTurnOpen) throw enclosure('step/start outside a turn')
        if (s.isStepOpen) throw enclosure(`step ${s.lastStep} is still open`)
        return { turn: s.lastTurn, step: s.lastStep + 1 }
      case 'step/end': {
        if (!s.isStepOpen) throw enclosure('step/end without an open step')
        const open = this.pendingCalls()
        if (open.length > 0) {
          throw pairing(
            `step ${s.lastStep} cannot end: calls without a result: ${open.map((c) => c.callId).join(', ')}`,
          )
        }
        break
      }
      case 'user/message':
      case 'workspace/diff':
        if (!s.isTurnOpen) throw enclosure(`${type} must be inside a turn`)
        break
      case 'workspace/restored':
      case 'workspace/restore-undone':
        // Files are put back only while no turn runs: a turn's diff would mix in the restore.
        if (s.isTurnOpen)
          throw enclosure(`${type} must be outside a turn, and turn ${s.lastTurn} is open`)
        break
      case 'assistant/chunk':
        if (!s.isRequestStarted)
          throw enclosure('assistant/chunk before request/start in this step')
        if (s.hasMessage) throw enclosure('assistant/chunk after the step’s assistant/message')
        break
      case 'assistant/message': {
        if (!s.isRequestStarted)
          throw enclosure('assistant/message before request/start in this step')
        if (s.hasMessage) throw enclosure(`step ${s.lastStep} already has its assistant/message`)
        const ids = new Set<string>()
        for (const block of (data as EventDataInput<'assistant/message'>).blocks) {
          if (block.type !== 'tool-call') continue
          if (ids.has(block.callId))
            throw pairing(`callId ${block.callId} appears twice in one message`)
          ids.add(block.callId)
        }
        break
      }
      case 'request/start':
        if (s.hasMessage) throw enclosure(`step ${s.lastStep} already has its assistant/message`)
        break
      case 'tool/call': {
        const { callId, parent } = data as EventDataInput<'tool/call'>
        const call = s.calls.get(callId)
        if (parent || call?.parent !== undefined) {
          this.checkLinked(type, callId, parent?.callId)
          break
        }
        if (!call)
          throw pairing(`tool/call ${callId} was not proposed by this step’s assistant/message`)
        if (call.status !== 'proposed')
          throw pairing(
            `tool/call ${callId} was already ${call.status === 'called' ? 'started' : 'answered'}`,
          )
        break
      }
      case 'tool/result': {
        const { callId, parent } = data as EventDataInput<'tool/result'>
        const call = s.calls.get(callId)
        if (parent || call?.parent !== undefined) {
          this.checkLinked(type, callId, parent?.callId)
          break
        }
        if (!call) throw pairing(`tool/result ${callId} has no call in this step`)
        if (call.status === 'done')
          throw pairing(`tool/result ${callId} is a second result for one call`)
        const open = [...s.calls].filter(([, c]) => c.parent === callId && c.status !== 'done')
        if (open.length > 0)
          throw pairing(
            `tool/result ${callId} comes before the results of its linked calls ${open.map(([id]) => id).join(', ')}`,
          )
        break
      }
      case 'approval/requested':
      case 'approval/decided': {
        const { callId, parent } = data as { callId: string; parent?: { callId: string } }
        if (parent) {
          this.checkLinked(type, callId, parent.callId)
          break
        }
        const call = s.calls.get(callId)
        if (call?.status !== 'proposed')
          throw pairing(
            `${type} ${callId} is not a proposed call of this step that has not started`,
          )
        break
      }
      case 'process/started': {
        const { callId } = data as EventDataInput<'process/started'>
        if (s.calls.get(callId)?.status !== 'called')
          throw pairing(`process/started ${callId} is not a running call of this step`)
        break
      }
      case 'subagent/started': {
        const { callId } = data as EventDataInput<'subagent/started'>
        if (s.calls.get(callId)?.status !== 'called')
          throw pairing(`subagent/started ${callId} is not a running call of this step`)
        break
      }
      case 'session/created':
      case 'session/spawned':
      case 'session/imported':
      case 'session/title':
      case 'session/model':
      case 'session/code-mode':
      case 'inbox/queued':
      case 'inbox/claimed':
      case 'request/header':
      case 'compaction/checkpoint':
      case 'compaction/undone':
      case 'compaction/pruned':
      case 'deliverable/present':
      case 'recovery/repaired':
      case 'error':
      case 'notice':
        break
    }
    return { turn: this.turn, step: this.step }
  }

  apply(event: LogEvent): void {
    const s = this.state
    switch (event.type) {
      case 'turn/start':
        s.lastTurn = event.turn
        s.isTurnOpen = true
        s.lastStep = 0
        break
      case 'turn/end':
        s.isTurnOpen = false
        break
      case 'step/start':
        s.lastStep = event.step
        s.isStepOpen = true
        s.isRequestStarted = false
        s.hasMessage = false
        s.stream = []
        s.calls = new Map()
        break
      case 'step/end':
        s.isStepOpen = false
        s.stream = []
        s.calls = new Map()
        break
      case 'request/start':
        s.isRequestStarted = true
        s.stream = []
        break
      case 'assistant/chunk':
        for (const delta of event.data.deltas) {
          if (delta.kind === 'tool-call') continue
          if (delta.kind === 'text-is-reasoning') {
            s.stream = [{ kind: 'reasoning', text: s.stream.map((piece) => piece.text).join('') }]
            continue
          }
          const last = s.stream.at(-1)
          if (last?.kind === delta.kind) last.text += delta.text
          else s.stream.push({ kind: delta.kind, text: delta.text })
        }
        break
      case 'assistant/message':
        s.hasMessage = true
        s.stream = []
        for (const block of event.data.blocks) {
          if (block.type === 'tool-call')
            s.calls.set(block.callId, { name: block.name, status: 'proposed' })
        }
        break
      case 'tool/call': {
        const call = s.calls.get(event.data.callId)
        if (call) call.status = 'called'
        else if (event.data.parent)
          s.calls.set(event.data.callId, {
            name: event.data.name,
            status: 'called',
            parent: event.data.parent.callId,
          })
        break
      }
      case 'tool/result': {
        const call = s.calls.get(event.data.callId)
        if (call) call.status = 'done'
        // A linked call refused before it started has no tool/call: its result records it.
        else if (event.data.parent)
          s.calls.set(event.data.callId, {
            name: '',
            status: 'done',
            parent: event.data.parent.callId,
          })
        break
      }
      case 'process/started': {
        const call = s.calls.get(event.data.callId)
        if (call) call.process = { ...event.data }
        break
      }
      case 'subagent/started': {
        const call = s.calls.get(event.data.callId)
        if (call) call.subagent = String(event.data.sessionId)
        break
      }
      default:
        break
    }
  }

  /**
   * A linked call (a program's inner call) is valid only while its parent call runs, names the
   * same parent at every event, and follows the order approval -> tool/call -> tool/result. It is
   * known from its tool/call (or, refused before it started, from its result); approval events
   * for it are checked, not recorded.
   */
  private checkLinked(type: EventType, callId: string, parentId: string | undefined): void {
    const s = this.state
    const call = s.calls.get(callId)
    if (parentId === undefined)
      throw pairing(
        `${type} ${callId} is a linked call of ${call?.parent ?? '?'} but names no parent`,
      )
    if (call && call.parent !== parentId)
      throw pairing(
        call.parent === undefined
          ? `${type} ${callId} names a parent, but the step's assistant/message proposed it`
          : `${type} ${callId} names parent ${parentId}, but it belongs to ${call.parent}`,
      )
    const parent = s.calls.get(parentId)
    if (parent?.status !== 'called')
      throw pairing(
        `${type} ${callId} is linked to ${parentId}, which is not a running call of this step`,
      )
    if (call === undefined) return
    if (type !== 'tool/result' || call.status === 'done')
      throw pairing(
        `${type} ${callId} comes after the linked call was already ${call.status === 'done' ? 'answered' : 'started'}`,
      )
  }

  /** A copy of the state, for rolling back a batch whose commit failed. */
  snapshot(): unknown {
    const s = this.state
    return {
      ...s,
      stream: s.stream.map((block) => ({ ...block })),
      calls: new Map([...s.calls].map(([id, call]) => [id, { ...call }])),
    } satisfies State
  }

  restore(snapshot: unknown): void {
    this.state = snapshot as State
  }

  /**
   * What closes everything open, in order: the streamed text as an interrupted message, a
   * result for each unanswered call (not started, or outcome unknown), then the step and turn.
   */
  closes(
    cause: 'crash' | 'fork',
    processNotes?: ReadonlyMap<string, string>,
    answers?: ReadonlyMap<string, { output: string; metadata?: Record<string, JsonValue> }>,
  ): SyntheticEvent[] {
    const s = this.state
    const out: SyntheticEvent[] = []
    const reason = cause === 'crash' ? 'interrupted-by-crash' : 'interrupted-by-fork'
    const stopped =
      cause === 'crash' ? 'the harness stopped' : 'the session was forked at this point'
    if (s.isStepOpen && s.isRequestStarted && !s.hasMessage && s.stream.length > 0) {
      out.push({
        type: 'assistant/message',
        data: {
          blocks: s.stream.map((block) => ({ type: block.kind, text: block.text })),
          finish: 'other',
          interrupted: true,
        },
        what: `kept the ${s.stream.length} streamed block(s) of an unfinished reply, marked interrupted; partial tool calls dropped`,
      })
    }
    // A linked call is closed before its parent, whose result must come after its inner calls'.
    const pending = this.pendingCalls()
    const linked = pending.filter((call) => call.parent !== undefined)
    for (const call of [...linked, ...pending.filter((call) => call.parent === undefined)]) {
      const parent = call.parent === undefined ? {} : { parent: { callId: call.parent } }
      const answer = call.isStarted ? answers?.get(call.callId) : undefined
      if (answer) {
        // Its outcome was committed elsewhere (a subagent's own log): that is its result.
        out.push({
          type: 'tool/result',
          data: { callId: call.callId, ok: true, ...parent, ...answer },
          what: `${call.callId} (${call.name}) started without a result here; its answer was found and recorded`,
        })
        continue
      }
      out.push(
        call.isStarted
          ? {
              type: 'tool/result',
              data: {
                callId: call.callId,
                ok: false,
                ...parent,
                error: {
                  code: TOOL_OUTCOME_UNKNOWN,
                  message:
                    `${call.name} was started but ${stopped} before its result was recorded, so its outcome is unknown. ` +
                    (processNotes?.has(call.callId) ? `${processNotes.get(call.callId)} ` : '') +
                    'Check the current state (read the files, look at git diff, list processes) before repeating anything with side effects.',
                },
              },
              what: `${call.callId} (${call.name}) started without a result: TOOL_OUTCOME_UNKNOWN${processNotes?.has(call.callId) ? `; ${processNotes.get(call.callId)}` : ''}`,
            }
          : {
              type: 'tool/result',
              data: {
                callId: call.callId,
                ok: false,
                ...parent,
                error: {
                  code: TOOL_NOT_STARTED,
                  message: `${call.name} was not started because ${stopped} first; it had no effect and is safe to run again.`,
                },
              },
              what: `${call.callId} (${call.name}) never started: TOOL_NOT_STARTED`,
            },
      )
    }
    if (s.isStepOpen) {
      out.push({
        type: 'step/end',
        data: { reason },
        what: `closed step ${s.lastStep} of turn ${s.lastTurn}`,
      })
    }
    if (s.isTurnOpen)
      out.push({ type: 'turn/end', data: { reason }, what: `closed turn ${s.lastTurn}` })
    return out
  }
}
