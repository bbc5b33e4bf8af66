import { memo, useEffect, useMemo } from 'react'
import type { BridleApi, FileChange } from '../../../../protocol/contract'
import { rowsOfPatch } from './diff-lines'
import { DiffView } from './diff-view'
import type { ChatItem, FileSummary } from './items'
import { isStringSet, useRowState } from './row-state'
import { useTurnDiff } from './use-turn-diff'
import type { TurnDiffState } from './use-turn-diff'

type ChangesItem = Extract<ChatItem, { kind: 'changes' }>

interface ChangesCardProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly item: ChangesItem
}

/**
 * What a turn changed in the project (its `workspace/diff` event): each file with its status
 * and line counts, and its patch on demand. The counts come with the event; the patches are
 * computed by the core from the turn's snapshots, so they are fetched (once) when a file opens.
 */
export const ChangesCard = memo(function ChangesCard({ api, sessionId, item }: ChangesCardProps) {
  const { state, load } = useTurnDiff(api, sessionId, item.turn)
  const [open, setOpen] = useRowState<ReadonlySet<string>>(
    `files:${item.key}`,
    new Set(),
    isStringSet,
  )
  useEffect(() => {
    if (open.size > 0) load()
  }, [open, load])
  const added = item.files.reduce((sum, file) => sum + file.additions, 0)
  const removed = item.files.reduce((sum, file) => sum + file.deletions, 0)
  const toggle = (path: string) => {
    const next = new Set(open)
    if (next.has(path)) next.delete(path)
    else next.add(path)
    setOpen(next)
  }
  return (
    <section className="changes" aria-label="Changes">
      <h3>
        Changes <span className="muted">in turn {item.turn}:</span> {item.files.length}{' '}
        {item.files.length === 1 ? 'file' : 'files'}{' '}
        <Counts additions={added} deletions={removed} />
      </h3>
      <ul className="changes-files">
        {item.files.map((file) => (
          <li key={file.path}>
            <button
              type="button"
              className="changes-file"
              aria-expanded={open.has(file.path)}
              onClick={() => toggle(file.path)}
            >
              <span aria-hidden="true">{open.has(file.path) ? '▾' : '▸'}</span>
              <span className={`file-status status-${file.status}`}>{file.status}</span>
              <code className="file-path">{file.path}</code>
              <Counts additions={file.additions} deletions={file.deletions} />
            </button>
            {open.has(file.path) && <FilePatch state={state} file={file} onRetry={load} />}
          </li>
        ))}
      </ul>
    </section>
  )
})

function Counts({
  additions,
  deletions,
}: {
  readonly additions: number
  readonly deletions: number
}) {
  return (
    <span className="counts">
      <span className="count-add">+{additions}</span>{' '}
      <span className="count-del">−{deletions}</span>
    </span>
  )
}

function FilePatch({
  state,
  file,
  onRetry,
}: {
  readonly state: TurnDiffState
  readonly file: FileSummary
  readonly onRetry: () => void
}) {
  const change: FileChange | undefined =
    state.status === 'loaded' ? state.files.find((f) => f.path === file.path) : undefined
  const diff = useMemo(
    () => (change?.patch === undefined ? undefined : rowsOfPatch(change.patch)),
    [change],
  )
  if (state.status === 'idle' || state.status === 'loading') {
    return <p className="muted patch-note">Loading the diff…</p>
  }
  if (state.status === 'failed') {
    return (
      <p className="error-row patch-note">
        Could not load the diff: {state.message}{' '}
        <button type="button" className="link" onClick={onRetry}>
          Try again
        </button>
      </p>
    )
  }
  if (change?.isBinary === true) return <p className="muted patch-note">Binary file: no diff.</p>
  if (!diff) {
    return (
      <p className="muted patch-note">
        No diff kept for this file (changed by a command without a snapshot, or too large).
      </p>
    )
  }
  return <DiffView diff={diff} label={`Diff of ${file.path}`} />
}
