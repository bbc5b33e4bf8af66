/**
 * The step/tool Gantt's layout, pure: events in, bars with a lane, a row and a time span out.
 * One lane per step; its first row is the step's request (`request/start` → its
 * `assistant/message`), the rows below hold its tool calls (`tool/call` → `tool/result` by
 * callId), stacked so calls that ran at the same time sit on different rows.
 *
 * A call another call made (code mode: a `run_code` program's `tools.read(...)`, a `tool/call`
 * with `parent`) is an inner bar: it takes no row of its own but sits inside its parent's bar,
 * which is two rows tall (its label above, its inner bars below).
 *
 * A `task` call's bar is its subagent's span: labelled with the subagent's description (from its
 * arguments, then `subagent/started`) and naming the child session once the log does.
 *
 * Concurrency is decided by seq, not by clock: a call started (its `tool/call` logged) before an
 * earlier call's `tool/result` ran alongside it, even when both took under a millisecond and
 * their `at`s are equal. The clock only places the bars on the axis.
 */
import type { EventDto } from '../../../../protocol/contract'
import { callKey, placeOf } from '../../state/event-selectors'

export type BarKind = 'request' | 'tool'

export interface GanttBar {
  /** `request:<seq>` or `tool:<callKey>` (turn.step.callId: ids repeat from step to step). */
  readonly id: string
  readonly kind: BarKind
  /** The request's model, or the tool's name. */
  readonly label: string
  readonly turn: number
  readonly step: number
  /** The lane (one per step, in order of first appearance). */
  readonly lane: number
  /** The row inside the lane: 0 for the request, 1.. for tool calls. */
  readonly row: number
  /** Epoch ms; `end >= start`. An open bar ends at the layout's end. */
  readonly start: number
  readonly end: number
  readonly startSeq: number
  /** The closing event's seq; undefined while the request or call is still open. */
  readonly endSeq?: number
  readonly isOpen: boolean
  /** The call's outcome (`tool/result` ok); undefined for requests and open calls. */
  readonly ok?: boolean
  /** Rows the bar is tall: 2 for a call with inner calls, else 1. */
  readonly rowSpan: number
  /** An inner bar's parent (the id of the call that made it); it sits on its parent's second row. */
  readonly parentId?: string
  /** A `task` call's child session (`subagent/started`, or its result's metadata), once known. */
  readonly subagentId?: string
}

export interface GanttLane {
  readonly lane: number
  readonly turn: number
  readonly step: number
  /** Rows in this lane: 1 (the request) plus the tool rows used. */
  readonly rows: number
}

export interface GanttLayout {
  readonly bars: readonly GanttBar[]
  readonly lanes: readonly GanttLane[]
  /** The axis, epoch ms; `end > start` whenever there is a bar. */
  readonly start: number
  readonly end: number
}

interface OpenBar {
  kind: BarKind
  label: string
  turn: number
  step: number
  start: number
  startSeq: number
  end?: number
  endSeq?: number
  ok?: boolean
  id: string
  parentId?: string
  subagentId?: string
}

/** The tool that starts a subagent, whose bar is the child's span. */
const TASK_TOOL = 'task'

/** A `task` call's description argument, if it has one. */
function taskDescription(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const description = (args as Record<string, unknown>)['description']
  return typeof description === 'string' && description.trim() !== ''
    ? description.trim()
    : undefined
}

const stepKey = (turn: number, step: number) => `${turn}.${step}`

/** Pairs the opening and closing events of every request and tool call, in seq order. */
function pairBars(events: readonly EventDto[]): OpenBar[] {
  const bars: OpenBar[] = []
  const openRequests = new Map<string, OpenBar>()
  const openCalls = new Map<string, OpenBar>()
  for (const event of events) {
    const key = stepKey(event.turn, event.step)
    switch (event.type) {
      case 'request/start': {
        const bar: OpenBar = {
          id: `request:${event.seq}`,
          kind: 'request',
          label: event.data.model,
          turn: event.turn,
          step: event.step,
          start: event.at,
          startSeq: event.seq,
        }
        // A retry opens a new request in the same step; the earlier one ended there.
        const earlier = openRequests.get(key)
        if (earlier) Object.assign(earlier, { end: event.at, endSeq: event.seq })
        openRequests.set(key, bar)
        bars.push(bar)
        break
      }
      case 'assistant/message': {
        const bar = openRequests.get(key)
        if (bar) Object.assign(bar, { end: event.at, endSeq: event.seq })
        openRequests.delete(key)
        break
      }
      case 'tool/call': {
        const { name, args, mcp, parent } = event.data
        const call = callKey(placeOf(event))
        const isTask = name === TASK_TOOL && mcp === undefined
        const bar: OpenBar = {
          id: `tool:${call}`,
          kind: 'tool',
          label: (isTask ? taskDescription(args) : undefined) ?? name,
          turn: event.turn,
          step: event.step,
          start: event.at,
          startSeq: event.seq,
          ...(parent === undefined
            ? {}
            : { parentId: `tool:${callKey({ ...placeOf(event), callId: parent.callId })}` }),
        }
        openCalls.set(call, bar)
        bars.push(bar)
        break
      }
      case 'tool/result': {
        const call = callKey(placeOf(event))
        const bar = openCalls.get(call)
        if (bar) {
          Object.assign(bar, { end: event.at, endSeq: event.seq, ok: event.data.ok })
          const subagent = event.data.metadata?.['subagent']
          if (typeof subagent === 'string') bar.subagentId = subagent
          openCalls.delete(call)
        }
        break
      }
      case 'subagent/started': {
        const { callId, sessionId, description } = event.data
        const bar = openCalls.get(callKey({ turn: event.turn, step: event.step, callId }))
        if (bar)
          Object.assign(bar, {
            label: description.trim() || bar.label,
            subagentId: String(sessionId),
          })
        break
      }
      default:
        break
    }
  }
  return bars
}

/**
 * Lays out the requests and tool calls of `events` (seq order; other types are ignored).
 * `now` ends the bars still open (default: the last event's time).
 */
export function layoutGantt(events: readonly EventDto[], now?: number): GanttLayout {
  const paired = pairBars(events)
  if (paired.length === 0) return { bars: [], lanes: [], start: 0, end: 0 }
  // A loop, not Math.max(...): a long session's events overflow the argument list.
  let lastAt = 0
  for (const event of events) lastAt = Math.max(lastAt, event.at)
  const axisEnd = Math.max(now ?? lastAt, lastAt)
  const laneOf = new Map<string, number>()
  /** Per lane, the last end seq of each tool row (Infinity while that row's call is open). */
  const rowEnds = new Map<number, number[]>()
  const bars: GanttBar[] = []
  const parents = new Set(paired.flatMap((bar) => bar.parentId ?? []))
  /** Where each call's bar went: an inner bar goes on its parent's second row. */
  const placed = new Map<string, { lane: number; row: number }>()
  for (const bar of paired) {
    const key = stepKey(bar.turn, bar.step)
    let lane = laneOf.get(key)
    if (lane === undefined) {
      lane = laneOf.size
      laneOf.set(key, lane)
      rowEnds.set(lane, [])
    }
    let row = 0
    const rowSpan = parents.has(bar.id) ? 2 : 1
    const parent = bar.parentId === undefined ? undefined : placed.get(bar.parentId)
    if (parent !== undefined) {
      lane = parent.lane
      row = parent.row + 1
    } else if (bar.kind === 'tool') {
      const ends = rowEnds.get(lane) ?? []
      const free = freeRows(ends, bar.startSeq, rowSpan)
      for (let i = 0; i < rowSpan; i++) ends[free + i] = bar.endSeq ?? Number.POSITIVE_INFINITY
      rowEnds.set(lane, ends)
      row = free + 1
    }
    placed.set(bar.id, { lane, row })
    const end = bar.end ?? axisEnd
    bars.push({
      id: bar.id,
      kind: bar.kind,
      label: bar.label,
      turn: bar.turn,
      step: bar.step,
      lane,
      row,
      start: bar.start,
      end: Math.max(end, bar.start),
      startSeq: bar.startSeq,
      ...(bar.endSeq === undefined ? {} : { endSeq: bar.endSeq }),
      isOpen: bar.endSeq === undefined,
      ...(bar.ok === undefined ? {} : { ok: bar.ok }),
      rowSpan,
      ...(parent === undefined || bar.parentId === undefined ? {} : { parentId: bar.parentId }),
      ...(bar.subagentId === undefined ? {} : { subagentId: bar.subagentId }),
    })
  }
  const lanes: GanttLane[] = [...laneOf.entries()].map(([key, lane]) => {
    const [turn, step] = key.split('.').map(Number)
    return { lane, turn: turn ?? 0, step: step ?? 0, rows: 1 + (rowEnds.get(lane)?.length ?? 0) }
  })
  const start = bars.reduce((min, bar) => Math.min(min, bar.start), Number.POSITIVE_INFINITY)
  const end = bars.reduce((max, bar) => Math.max(max, bar.end), 0)
  return { bars, lanes, start, end: end > start ? end : start + 1 }
}

/** The first of `count` adjacent tool rows whose last call ended before `startSeq`. */
function freeRows(ends: readonly number[], startSeq: number, count: number): number {
  for (let first = 0; ; first++) {
    let isFree = true
    for (let i = first; i < first + count; i++) {
      const endSeq = ends[i]
      if (endSeq !== undefined && endSeq >= startSeq) isFree = false
    }
    if (isFree) return first
  }
}

/** Whether two bars ran at the same time by the log's order (see the module comment). */
export function barsOverlap(a: GanttBar, b: GanttBar): boolean {
  const aEnd = a.endSeq ?? Number.POSITIVE_INFINITY
  const bEnd = b.endSeq ?? Number.POSITIVE_INFINITY
  return a.startSeq < bEnd && b.startSeq < aEnd
}
