import { useState } from 'react'
import Markdown from 'react-markdown'
import remarkGfm from 'remark-gfm'
import type { BridleApi } from '../../../../protocol/contract'
import type { EventCache } from '../../state/event-cache'
import { formatTime } from '../timeline'
import type { Checkpoint } from './checkpoints'
import { savedPercent } from './checkpoints'
import { OriginalEvents } from './original-events'

interface CheckpointItemProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly cache: EventCache
  readonly checkpoint: Checkpoint
  readonly isRunning: boolean
  readonly onSelectSeq: (seq: number) => void
}

/** One checkpoint: its facts, and on demand its summary, the events it hides, and undo. */
export function CheckpointItem({
  api,
  sessionId,
  cache,
  checkpoint,
  isRunning,
  onSelectSeq,
}: CheckpointItemProps) {
  const [undoError, setUndoError] = useState<string | undefined>(undefined)
  const [isUndoing, setUndoing] = useState(false)
  // The originals are read the first time they are opened, then kept.
  const [hasOpenedOriginals, setOriginalsOpened] = useState(false)
  const isUndone = checkpoint.undoneSeq !== undefined
  const undo = () => {
    setUndoing(true)
    setUndoError(undefined)
    void api
      .call('compaction/undo', { sessionId, checkpointSeq: checkpoint.seq })
      .then((result) => {
        if (!result.ok) setUndoError(`${result.error.code}: ${result.error.message}`)
      })
      .finally(() => setUndoing(false))
  }
  return (
    <li
      className={`cp-item${isUndone ? ' cp-undone' : ''}`}
      data-testid="checkpoint"
      data-seq={checkpoint.seq}
      data-undone={isUndone}
    >
      <div className="cp-head">
        <button type="button" className="cp-seq" onClick={() => onSelectSeq(checkpoint.seq)}>
          #{checkpoint.seq}
        </button>
        <span className="muted">
          {new Date(checkpoint.at).toLocaleDateString()} {formatTime(checkpoint.at)}
        </span>
        {isUndone ? <span className="cp-badge">undone at #{checkpoint.undoneSeq}</span> : null}
      </div>
      <dl className="cp-facts">
        <dt>replaces</dt>
        <dd data-testid="checkpoint-range">
          seq {checkpoint.fromSeq}..{checkpoint.toSeq}
        </dd>
        <dt>tokens</dt>
        <dd data-testid="checkpoint-tokens">
          {checkpoint.tokensBefore} → {checkpoint.tokensAfter}{' '}
          <span className="muted">(−{savedPercent(checkpoint)}%)</span>
        </dd>
        {checkpoint.model ? (
          <>
            <dt>model</dt>
            <dd>{checkpoint.model}</dd>
          </>
        ) : null}
      </dl>
      <details className="cp-section">
        <summary>Summary</summary>
        <div className="cp-summary">
          <Markdown remarkPlugins={[remarkGfm]}>{checkpoint.summary}</Markdown>
        </div>
      </details>
      <details
        className="cp-section"
        onToggle={(e) => setOriginalsOpened(e.currentTarget.open || hasOpenedOriginals)}
      >
        <summary>Original events</summary>
        {hasOpenedOriginals ? (
          <OriginalEvents
            cache={cache}
            fromSeq={checkpoint.fromSeq}
            toSeq={checkpoint.toSeq}
            onSelectSeq={onSelectSeq}
          />
        ) : null}
      </details>
      {isUndone ? null : (
        <button type="button" className="cp-undo" disabled={isRunning || isUndoing} onClick={undo}>
          {isUndoing ? 'Undoing…' : 'Undo this checkpoint'}
        </button>
      )}
      {undoError ? (
        <p role="alert" className="error-row">
          {undoError}
        </p>
      ) : null}
    </li>
  )
}
