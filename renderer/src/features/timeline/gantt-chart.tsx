import { useMemo, useState } from 'react'
import type { EventDto } from '../../../../protocol/contract'
import type { EventCache } from '../../state/event-cache'
import { layoutGantt } from './gantt'
import type { GanttBar, GanttLayout } from './gantt'
import { TurnStepper } from './turn-stepper'
import { useTurnEvents, useTurnSpans } from './use-turn-events'

const ROW_PX = 20
const LANE_GAP_PX = 6

/** `1.2 s`, `340 ms`: bar lengths in the unit that reads best. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

interface GanttChartProps {
  /** The session's cache: the turns and a turn's events outside the feed's window come from it. */
  readonly cache: EventCache
  /** The feed's events (a window of the history: chunks are not needed here). */
  readonly events: readonly EventDto[]
  /** The turn to open on; defaults to the last. */
  readonly initialTurn?: number
  readonly isRunning: boolean
  readonly selectedSeq: number | undefined
  readonly onSelect: (seq: number) => void
}

/**
 * The step/tool Gantt of one turn (a whole long session would squash every bar to a pixel).
 * Bars are placed in percent of the turn's span so the chart needs no measuring; each carries
 * its times and row as data attributes for tests and tooltips.
 */
export function GanttChart({
  cache,
  events,
  initialTurn,
  isRunning,
  selectedSeq,
  onSelect,
}: GanttChartProps) {
  const spans = useTurnSpans(cache)
  const [chosen, setChosen] = useState<number | undefined>(initialTurn)
  const span = spans?.find((s) => s.turn === chosen) ?? spans?.at(-1)
  const turn = span?.turn
  const read = useTurnEvents(cache, events, span)
  const layout = useMemo(
    () => layoutGantt(read.events, isRunning ? Date.now() : undefined),
    [read.events, isRunning],
  )
  const turns = useMemo(() => (spans ?? []).map((s) => s.turn), [spans])

  return (
    <section className="gantt" aria-label="Step and tool Gantt">
      <div className="gantt-bar-controls">
        <TurnStepper turns={turns} value={turn} onChange={setChosen} />
        {layout.bars.length > 0 ? (
          <span className="muted">
            {formatDuration(layout.end - layout.start)} · {layout.lanes.length} step(s) ·{' '}
            {callCounts(layout)}
          </span>
        ) : null}
      </div>
      {read.error !== undefined ? (
        <p role="alert" className="error-row">
          Could not read the turn: {read.error}
        </p>
      ) : spans === undefined || read.isLoading ? (
        <p className="muted">Reading the turn…</p>
      ) : layout.bars.length === 0 ? (
        <p className="muted">No requests or tool calls in this turn yet.</p>
      ) : (
        <GanttBody layout={layout} selectedSeq={selectedSeq} onSelect={onSelect} />
      )}
    </section>
  )
}

/** "3 tool call(s)", and how many of them a program made: "3 tool call(s), 2 inside programs". */
function callCounts(layout: GanttLayout): string {
  const tools = layout.bars.filter((b) => b.kind === 'tool')
  const inner = tools.filter((b) => b.parentId !== undefined).length
  return `${tools.length - inner} tool call(s)${inner === 0 ? '' : `, ${inner} inside programs`}`
}

interface GanttBodyProps {
  readonly layout: GanttLayout
  readonly selectedSeq: number | undefined
  readonly onSelect: (seq: number) => void
}

function GanttBody({ layout, selectedSeq, onSelect }: GanttBodyProps) {
  const span = layout.end - layout.start
  const laneTops: number[] = []
  let top = 0
  for (const lane of layout.lanes) {
    laneTops[lane.lane] = top
    top += lane.rows * ROW_PX + LANE_GAP_PX
  }
  return (
    <div className="gantt-body">
      <div className="gantt-labels" style={{ height: top }}>
        {layout.lanes.map((lane) => (
          <div
            key={lane.lane}
            className="gantt-lane-label"
            style={{ top: laneTops[lane.lane], height: lane.rows * ROW_PX }}
          >
            step {lane.step}
          </div>
        ))}
      </div>
      <div className="gantt-plot" style={{ height: top }} data-testid="gantt-plot">
        {layout.lanes.map((lane) => (
          <div
            key={lane.lane}
            className="gantt-lane"
            style={{ top: laneTops[lane.lane], height: lane.rows * ROW_PX }}
          />
        ))}
        {layout.bars.map((bar) => (
          <Bar
            key={bar.id}
            bar={bar}
            left={((bar.start - layout.start) / span) * 100}
            width={((bar.end - bar.start) / span) * 100}
            top={(laneTops[bar.lane] ?? 0) + bar.row * ROW_PX}
            isSelected={bar.startSeq === selectedSeq || bar.endSeq === selectedSeq}
            onSelect={onSelect}
          />
        ))}
      </div>
      <div className="gantt-axis">
        <span>0</span>
        <span>{formatDuration(span / 2)}</span>
        <span>{formatDuration(span)}</span>
      </div>
    </div>
  )
}

interface BarProps {
  readonly bar: GanttBar
  readonly left: number
  readonly width: number
  readonly top: number
  readonly isSelected: boolean
  readonly onSelect: (seq: number) => void
}

/**
 * Where a bar's label goes (positions in percent of the plot): inside a bar wide enough to hold
 * it, otherwise after the bar, or before it when the bar ends near the right edge, where a label
 * after it would be cut.
 */
export function labelPlace(left: number, width: number): 'inside' | 'after' | 'before' {
  if (width >= 22) return 'inside'
  return left + width > 65 ? 'before' : 'after'
}

function Bar({ bar, left, width, top, isSelected, onSelect }: BarProps) {
  const duration = formatDuration(bar.end - bar.start)
  const state = bar.isOpen ? 'running' : bar.ok === false ? 'failed' : 'done'
  const isInner = bar.parentId !== undefined
  const isSubagent = bar.subagentId !== undefined
  const name = bar.kind === 'request' ? 'request' : isSubagent ? `subagent ${bar.label}` : bar.label
  // An inner bar's label shows only inside it: beside it, it would cover the next inner bar.
  const place = labelPlace(left, width)
  const labelClass = isInner && place !== 'inside' ? 'gantt-label-hidden' : `gantt-label-${place}`
  const nesting = isInner ? ' gantt-inner' : bar.rowSpan > 1 ? ' gantt-outer' : ''
  return (
    <button
      type="button"
      className={`gantt-item gantt-${bar.kind}${isSubagent ? ' gantt-subagent' : ''} gantt-${state}${nesting}${isSelected ? ' gantt-selected' : ''} ${labelClass}`}
      style={{
        left: `${left}%`,
        width: `${width}%`,
        top: top + (isInner ? 1 : 2),
        height: bar.rowSpan * ROW_PX - (isInner ? 5 : 4),
      }}
      title={`${name}${isInner ? ' (inside the program)' : ''} · ${duration} · seq ${bar.startSeq}${bar.endSeq === undefined ? '' : `..${bar.endSeq}`}${isSubagent ? ' · select it to open the subagent' : ''}`}
      aria-label={`${name}${isInner ? ' inside the program' : ''} step ${bar.step}, ${duration}`}
      data-testid="gantt-bar"
      data-kind={bar.kind}
      data-label={bar.label}
      data-lane={bar.lane}
      data-row={bar.row}
      data-parent={bar.parentId}
      data-start={bar.start}
      data-end={bar.end}
      data-start-seq={bar.startSeq}
      data-end-seq={bar.endSeq}
      data-subagent-id={bar.subagentId}
      onClick={() => onSelect(bar.startSeq)}
    >
      <span className="gantt-item-label">
        {name} {duration}
      </span>
    </button>
  )
}
