import { useMemo, useState } from 'react'
import type { CompactionOutcome } from '../../../../protocol/contract'
import type { SessionPanelProps } from '../feed'
import { CheckpointItem } from './checkpoint-item'
import { listCheckpoints } from './checkpoints'
import './checkpoints.css'
import { useEventsOfTypes } from '../../state/use-events-of-types'

const COMPACTION_TYPES = ['compaction/checkpoint', 'compaction/undone']

/** The session's compaction checkpoints, "compact now" and undo. */
export function CheckpointsPanel({ api, feed, onSelectSeq }: SessionPanelProps) {
  // The feed holds a window of the history; a checkpoint may lie anywhere in it.
  const compactions = useEventsOfTypes(feed.cache, COMPACTION_TYPES)
  const checkpoints = useMemo(() => listCheckpoints(compactions), [compactions])
  const sessionId = feed.session.id
  return (
    <div className="cp">
      <CompactForm
        isRunning={feed.isRunning}
        onCompact={async (focus) => {
          const result = await api.call('compaction/run', {
            sessionId,
            ...(focus === '' ? {} : { focus }),
          })
          return result.ok
            ? result.value
            : { status: 'failed', message: `${result.error.code}: ${result.error.message}` }
        }}
      />
      {checkpoints.length === 0 ? (
        <p className="muted">
          No checkpoints yet. When the history nears the model&apos;s window, Bridle summarises its
          start into one; the originals stay in the log.
        </p>
      ) : (
        <ol className="cp-list" aria-label="Checkpoint list">
          {[...checkpoints].reverse().map((checkpoint) => (
            <CheckpointItem
              key={checkpoint.seq}
              api={api}
              sessionId={sessionId}
              cache={feed.cache}
              checkpoint={checkpoint}
              isRunning={feed.isRunning}
              onSelectSeq={onSelectSeq}
            />
          ))}
        </ol>
      )}
    </div>
  )
}

interface CompactFormProps {
  readonly isRunning: boolean
  readonly onCompact: (focus: string) => Promise<CompactionOutcome>
}

/** "Compact now", with an optional focus for the summary, and what came of it. */
function CompactForm({ isRunning, onCompact }: CompactFormProps) {
  const [focus, setFocus] = useState('')
  const [isBusy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<CompactionOutcome | undefined>(undefined)
  return (
    <form
      className="cp-form"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        setOutcome(undefined)
        void onCompact(focus.trim())
          .then(setOutcome)
          .finally(() => setBusy(false))
      }}
    >
      <input
        aria-label="Focus"
        placeholder="Focus for the summary (optional)"
        value={focus}
        maxLength={2000}
        onChange={(e) => setFocus(e.target.value)}
      />
      <button
        type="submit"
        disabled={isRunning || isBusy}
        title={isRunning ? 'Wait for the turn to finish' : undefined}
      >
        {isBusy ? 'Compacting…' : 'Compact now'}
      </button>
      {outcome ? <OutcomeLine outcome={outcome} /> : null}
    </form>
  )
}

function OutcomeLine({ outcome }: { readonly outcome: CompactionOutcome }) {
  if (outcome.status === 'compacted') {
    return (
      <p className="cp-outcome" role="status">
        Compacted seq {outcome.fromSeq}..{outcome.toSeq}: {outcome.tokensBefore} →{' '}
        {outcome.tokensAfter} tokens.
      </p>
    )
  }
  const isError = outcome.status === 'failed'
  return (
    <p
      className={isError ? 'cp-outcome error-row' : 'cp-outcome muted'}
      role={isError ? 'alert' : 'status'}
    >
      {outcome.status === 'nothing-to-compact' ? 'Nothing to compact: ' : ''}
      {outcome.status === 'cancelled' ? 'Cancelled: ' : ''}
      {outcome.message}
    </p>
  )
}
