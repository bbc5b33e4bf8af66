import { History, Undo2 } from 'lucide-react'
import { memo } from 'react'
import type { ChatItem } from './items'
import { useShell } from '../../state/shell-context'
import { planLines, planSummary } from '../../state/restore-words'

type RestoreItem = Extract<ChatItem, { kind: 'restore' }>

/**
 * A restore in the chat: where the files went back to and what changed, the files folded under
 * it; the session's last restore offers "Undo restore" until a turn runs.
 */
export const RestoreRow = memo(function RestoreRow({
  item,
  sessionId,
  onSelectSeq,
}: {
  readonly item: RestoreItem
  readonly sessionId: string
  readonly onSelectSeq: (seq: number) => void
}) {
  const openRestore = useShell((s) => s.openRestore)
  const isRestore = item.action === 'restored'
  const files = planLines(item)
  return (
    <div
      className={`notice-row restore-row${item.isUndone ? ' restore-row-undone' : ''}`}
      role="status"
      aria-label={
        isRestore ? `Files restored, event ${item.seq}` : `Restore undone, event ${item.seq}`
      }
    >
      <p className="restore-row-head">
        {isRestore ? <History size={15} aria-hidden /> : <Undo2 size={15} aria-hidden />}
        <span>
          <strong>{isRestore ? 'Files restored' : 'Restore undone'}</strong>{' '}
          {isRestore ? (
            <>
              to{' '}
              <button type="button" className="link" onClick={() => onSelectSeq(item.pointSeq)}>
                event {item.pointSeq}
              </button>
              : {planSummary(item)}.
            </>
          ) : (
            <>
              {item.cause === 'failed'
                ? 'because the restore could not finish: '
                : 'the files are as before the restore: '}
              {planSummary(item)}.
            </>
          )}
          {item.drifted.length > 0 && <> Overwrote {item.drifted.length} changed outside Bridle.</>}
          {item.isUndone && <span className="muted"> (undone)</span>}
        </span>
        {item.canUndo && (
          <button
            type="button"
            className="ghost restore-row-undo"
            onClick={() => openRestore({ kind: 'undo', sessionId })}
          >
            Undo restore
          </button>
        )}
      </p>
      {files.length > 0 && (
        <details className="restore-row-files">
          <summary>Files</summary>
          <ul>
            {files.map(({ path, verb, reason }) => (
              <li key={path}>
                <code>{path}</code>{' '}
                <span className="muted">{reason === undefined ? verb : `${verb}: ${reason}`}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  )
})
