import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { BridleApi } from '../../../../protocol/contract'
import type { EventDto } from '../../../../protocol/contract'
import { checkpointsOf } from '../../state/event-selectors'
import { useShell, useShellContext } from '../../state/shell-context'
import { eventWhere } from '../../state/restore-words'
import type { SessionPanelProps } from '../feed'
import { chatSeqFor, EventDetail, useSelectedEvent } from './event-detail'
import { EMPTY_FILTERS, EventFilters, parseWhole } from './event-filters'
import type { FilterState } from './event-filters'
import type { EventFilter, EventRows } from './event-rows'
import { summarizeEvent } from './event-summary'
import { EventTable } from './event-table'
import type { RowModel } from './event-table'
import { GanttChart } from './gantt-chart'
import type { CheckpointRange } from './request-diff'
import { RequestInspector } from './request-view'
import { sessionLinkOf } from './subagent-link'
import { useEventRows } from './use-event-rows'
import { useEventsOfTypes } from '../../state/use-events-of-types'
import type { EventCache } from '../../state/event-cache'
import './timeline.css'

/** What the request view needs of the whole history: where each request starts, the checkpoints. */
const REQUEST_TYPES = ['request/start', 'compaction/checkpoint', 'compaction/undone']

type Tab = 'events' | 'gantt' | 'request'
const TABS: readonly { id: Tab; label: string }[] = [
  { id: 'events', label: 'Events' },
  { id: 'gantt', label: 'Gantt' },
  { id: 'request', label: 'Request' },
]

function serverFilter(filters: FilterState): EventFilter {
  const turn = parseWhole(filters.turn)
  const step = parseWhole(filters.step)
  return {
    ...(filters.types.length > 0 ? { types: [...filters.types].sort() } : {}),
    ...(turn === undefined ? {} : { turn }),
    ...(step === undefined ? {} : { step }),
  }
}

/**
 * The text filter runs over the rows loaded so far (a whole-log text search is
 * `session/search`'s job): it turns the paged rows into an in-memory list.
 */
function useTextFiltered(rows: EventRows, text: string): RowModel {
  const { version } = rows
  return useMemo(() => {
    const needle = text.trim().toLowerCase()
    if (needle === '') return rows
    const matches = rows
      .loaded()
      .filter((event) =>
        `${event.type} ${summarizeEvent(event)} ${JSON.stringify(event.data)}`
          .toLowerCase()
          .includes(needle),
      )
    return {
      count: matches.length,
      rowAt: (index: number) => matches[index],
      ensure: () => undefined,
      version,
    }
  }, [rows, text, version])
}

/** Every event of the session, filters, details, the step/tool Gantt and the request view. */
export function TimelinePanel({
  api,
  feed,
  selectedSeq,
  onSelectSeq,
  onOpenSession,
}: SessionPanelProps) {
  const sessionId = feed.session.id
  const [tab, setTab] = useState<Tab>('events')
  const [filters, setFilters] = useState<FilterState>(EMPTY_FILTERS)
  const [requestSeq, setRequestSeq] = useState<number | undefined>(undefined)
  const [scrollTo, setScrollTo] = useState<{ index: number } | undefined>(undefined)
  const filter = useMemo(() => serverFilter(filters), [filters])
  const rows = useEventRows(feed.cache, filter)
  const visible = useTextFiltered(rows, filters.text)

  // A selection made here is already in view; one from outside (the chat) is scrolled to.
  const ownSelection = useRef<number | undefined>(undefined)
  useEffect(() => {
    if (selectedSeq === undefined || selectedSeq === ownSelection.current) return
    ownSelection.current = selectedSeq
    let isCurrent = true
    void rows.locate(selectedSeq).then((index) => {
      if (isCurrent && index !== undefined) setScrollTo({ index })
    })
    return () => {
      isCurrent = false
    }
  }, [selectedSeq, rows])

  // One function for the table's whole life: a new one would re-render every row.
  const onSelectSeqRef = useRef(onSelectSeq)
  onSelectSeqRef.current = onSelectSeq
  const select = useCallback((seq: number) => {
    ownSelection.current = seq
    onSelectSeqRef.current(seq)
  }, [])
  const selected = useSelectedEvent(feed.cache, selectedSeq)
  const openRestore = useShell((s) => s.openRestore)
  const { store } = useShellContext()
  // The chat holds a window of the history: it reads back to the event first, then the message
  // of its turn is found among the events it now holds.
  const showInChat = async (event: EventDto) => {
    await store.getState().reachBack(event.seq)
    onSelectSeq(chatSeqFor(event, store.getState().feed?.events ?? feed.events))
  }
  const link = useMemo(
    () => (selected === undefined ? undefined : sessionLinkOf(selected, feed.events)),
    [selected, feed.events],
  )

  const openRequest = (seq: number) => {
    setRequestSeq(seq)
    setTab('request')
  }
  const detail = (
    <EventDetail
      event={selected}
      onShowInChat={(event) => void showInChat(event)}
      onOpenRequest={openRequest}
      link={link}
      onOpenSession={onOpenSession}
      onRestore={(event) =>
        openRestore({
          kind: 'restore',
          sessionId: feed.session.id,
          toSeq: event.seq,
          where: eventWhere(event),
        })
      }
      onFork={async (seq) => {
        const result = await api.call('session/fork', {
          sessionId: feed.session.id,
          atSeq: seq + 1,
        })
        if (!result.ok) return result.error.message
        onOpenSession(result.value.id)
        return undefined
      }}
    />
  )

  return (
    <div className="tl">
      <div className="tl-tabs" role="tablist" aria-label="Inspector views">
        {TABS.map(({ id, label }) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? 'tl-tab tl-tab-active' : 'tl-tab'}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      {tab === 'events' ? (
        <div className="tl-events" role="tabpanel" aria-label="Events">
          <EventFilters value={filters} onChange={setFilters} />
          <RowStatus rows={rows} shown={visible.count} isText={filters.text.trim() !== ''} />
          <EventTable
            rows={visible}
            version={visible.version}
            selectedSeq={selectedSeq}
            onSelect={select}
            scrollTo={scrollTo}
          />
          {detail}
        </div>
      ) : null}
      {tab === 'gantt' ? (
        <div className="tl-gantt-tab" role="tabpanel" aria-label="Gantt">
          <GanttChart
            cache={feed.cache}
            events={feed.events}
            {...(selected === undefined ? {} : { initialTurn: selected.turn })}
            isRunning={feed.isRunning}
            selectedSeq={selectedSeq}
            onSelect={select}
          />
          {detail}
        </div>
      ) : null}
      {tab === 'request' ? (
        <div className="tl-request-tab" role="tabpanel" aria-label="Request view">
          <RequestTab
            api={api}
            cache={feed.cache}
            sessionId={sessionId}
            startSeq={requestSeq}
            onChangeStart={setRequestSeq}
          />
        </div>
      ) : null}
    </div>
  )
}

interface RequestTabProps {
  readonly api: BridleApi
  readonly cache: EventCache
  readonly sessionId: string
  readonly startSeq: number | undefined
  readonly onChangeStart: (seq: number) => void
}

/**
 * The request view with what it needs of the whole history, read only once the tab is opened:
 * on a long session that read is thousands of events the events table does not need.
 */
function RequestTab({ api, cache, sessionId, startSeq, onChangeStart }: RequestTabProps) {
  const requestEvents = useEventsOfTypes(cache, REQUEST_TYPES)
  const starts = useMemo(
    () => requestEvents.filter((e) => e.type === 'request/start').map((e) => e.seq),
    [requestEvents],
  )
  const checkpoints = useMemo(() => checkpointRanges(requestEvents), [requestEvents])
  return (
    <RequestInspector
      api={api}
      sessionId={sessionId}
      starts={starts}
      checkpoints={checkpoints}
      startSeq={startSeq}
      onChangeStart={onChangeStart}
    />
  )
}

function RowStatus({
  rows,
  shown,
  isText,
}: {
  readonly rows: EventRows
  readonly shown: number
  readonly isText: boolean
}) {
  if (rows.error !== undefined) {
    return (
      <p role="alert" className="error-row tl-status">
        Could not read events: {rows.error}
      </p>
    )
  }
  const what = isText
    ? `${shown} match(es) in ${rows.loadedCount} loaded row(s)`
    : `${rows.count}${rows.hasMore ? '+' : ''} event(s)`
  return (
    <p
      className="muted tl-status"
      data-testid="timeline-count"
      data-count={shown}
      aria-live="polite"
    >
      {rows.isLoading ? 'Loading events…' : what}
    </p>
  )
}

function checkpointRanges(events: readonly EventDto[]): CheckpointRange[] {
  return checkpointsOf(events).map(({ event }) => ({
    seq: event.seq,
    fromSeq: event.data.fromSeq,
    toSeq: event.data.toSeq,
  }))
}

// What the checkpoints panel uses of the timeline, on purpose: the same summaries and times.
export { summarizeEvent } from './event-summary'
export { formatTime } from './event-table'
