import { memo } from 'react'
import type { DiffRows } from './diff-lines'

interface DiffViewProps {
  readonly diff: DiffRows
  /** Off for a snippet diff (an edit's oldText/newText), whose numbers are not the file's. */
  readonly hasLineNumbers?: boolean
  readonly label: string
}

/** A unified diff as rows: hunk headers, removed and added lines, context. */
export const DiffView = memo(function DiffView({
  diff,
  hasLineNumbers = true,
  label,
}: DiffViewProps) {
  if (diff.rows.length === 0) return <p className="muted diff-empty">No textual change.</p>
  return (
    <div className="diff" role="figure" aria-label={label}>
      {diff.rows.map((row, index) => (
        <div key={index} className={`diff-row diff-${row.kind}`}>
          {hasLineNumbers && (
            <>
              <span className="diff-num">{row.oldLine ?? ''}</span>
              <span className="diff-num">{row.newLine ?? ''}</span>
            </>
          )}
          <span className="diff-mark" aria-hidden="true">
            {row.kind === 'add' ? '+' : row.kind === 'del' ? '−' : ' '}
          </span>
          <span className="diff-text">{row.text}</span>
        </div>
      ))}
      {diff.hidden > 0 && <p className="muted diff-more">{diff.hidden} more lines not shown.</p>}
    </div>
  )
})
