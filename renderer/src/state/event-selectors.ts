/**
 * The few questions several panels ask of a session's events, answered once over the typed
 * events the bridge delivers (`EventDto`, the log's own union): the chat, the timeline, the Gantt
 * and the checkpoints read these instead of decoding payloads each in their own way.
 *
 * Nothing here checks a payload's shape: the bridge parsed every event with its type's schema
 * (protocol/contract.ts), so `event.data` is what its type says. Pure, no React.
 */
import type { EventDto, EventDtoOf } from '../../../protocol/contract'
import type { EventType } from '../../../protocol/events'

/** A type guard for one event type, for `filter` and `find`. */
export const isOfType =
  <T extends EventType>(type: T) =>
  (event: EventDto): event is EventDtoOf<T> =>
    event.type === type

/** The last event of `type`, walking back from the end (the common question is "latest"). */
export function lastOfType<T extends EventType>(
  events: readonly EventDto[],
  type: T,
): EventDtoOf<T> | undefined {
  const matches = isOfType(type)
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event !== undefined && matches(event)) return event
  }
  return undefined
}

/** The events that concern one tool call, each naming it by `callId`. */
export type CallEvent = EventDtoOf<
  'tool/call' | 'tool/result' | 'approval/requested' | 'approval/decided' | 'process/started'
>

/** Where a call was made: its step (turn and step) and its id. */
export interface CallPlace {
  readonly turn: number
  readonly step: number
  readonly callId: string
}

/**
 * The key of one tool call in a session. A call id alone is unique only within its step: many
 * servers number calls per response (`call_0` in every reply), so a session holds many.
 */
export const callKey = ({ turn, step, callId }: CallPlace): string => `${turn}.${step}.${callId}`

/** The place of the call an event concerns (every call event is logged in the call's step). */
export const placeOf = (event: CallEvent): CallPlace => ({
  turn: event.turn,
  step: event.step,
  callId: event.data.callId,
})

/** Whether the log holds a decision on the call at `place` (its approval is no longer pending). */
export function isDecided(events: readonly EventDto[], place: CallPlace): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]
    if (
      e !== undefined &&
      e.type === 'approval/decided' &&
      e.turn === place.turn &&
      e.step === place.step &&
      e.data.callId === place.callId
    )
      return true
  }
  return false
}

type AssistantData = EventDtoOf<'assistant/message'>['data']
type Block = AssistantData['blocks'][number]
export type ToolCallBlock = Extract<Block, { type: 'tool-call' }>

/** An assistant message split by block kind, in order: what it said, thought and asked to run. */
export interface AssistantParts {
  readonly text: readonly string[]
  readonly reasoning: readonly string[]
  readonly calls: readonly ToolCallBlock[]
}

export function assistantParts(data: AssistantData): AssistantParts {
  const text: string[] = []
  const reasoning: string[] = []
  const calls: ToolCallBlock[] = []
  for (const block of data.blocks) {
    if (block.type === 'text') text.push(block.text)
    else if (block.type === 'reasoning') reasoning.push(block.text)
    else calls.push(block)
  }
  return { text, reasoning, calls }
}

/** A checkpoint with its range and, once a later `compaction/undone` names it, that event's seq. */
export interface CheckpointEntry {
  readonly event: EventDtoOf<'compaction/checkpoint'>
  readonly undoneSeq?: number
}

/** The checkpoints in log order, each with the first undo that named it. */
export function checkpointsOf(events: readonly EventDto[]): CheckpointEntry[] {
  const undone = new Map<number, number>()
  const checkpoints: EventDtoOf<'compaction/checkpoint'>[] = []
  for (const event of events) {
    if (event.type === 'compaction/checkpoint') checkpoints.push(event)
    else if (event.type === 'compaction/undone' && !undone.has(event.data.checkpointSeq)) {
      undone.set(event.data.checkpointSeq, event.seq)
    }
  }
  return checkpoints.map((event) => {
    const undoneSeq = undone.get(event.seq)
    return undoneSeq === undefined ? { event } : { event, undoneSeq }
  })
}
