import { useMemo } from 'react'
import type { BridleApi } from '../../../../protocol/contract'
import { rowsOfChange, rowsOfPatch, rowsOfSnippet } from './diff-lines'
import { DiffView } from './diff-view'
import type { ToolCallView } from './items'
import { num, record, str } from './read-json'
import { useTurnDiff } from './use-turn-diff'

interface ToolDiffProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly turn: number
  readonly call: ToolCallView
}

/**
 * The change an `edit` or `write` made. Neither tool puts a diff in its result metadata (only
 * path, lines, bytes, isCreated / replacements), so: an edit is shown from its own arguments
 * (oldText to newText: exact, but without the file's line numbers); a created file is all
 * additions; an overwrite needs the old content, which only the turn's snapshot diff has, so it
 * is fetched on demand from `workspace/diff` for the turn.
 */
export function ToolDiff({ api, sessionId, turn, call }: ToolDiffProps) {
  const args = record(call.args)
  const { oldText, newText, content } = args
  if (call.name === 'edit') {
    if (typeof oldText !== 'string' || typeof newText !== 'string') return null
    return (
      <EditDiff oldText={oldText} newText={newText} startLine={num(call.metadata, 'startLine')} />
    )
  }
  if (call.name !== 'write' || typeof content !== 'string') return null
  // Before it ran (or when it did not), the content it would write is what there is to judge.
  if (call.status !== 'done') return <ContentDiff content={content} label="Content to write" />
  if (call.metadata['isCreated'] === true) return <ContentDiff content={content} label="New file" />
  const path = str(call.metadata, 'path') || str(args, 'path')
  return <TurnFileDiff api={api} sessionId={sessionId} turn={turn} path={path} />
}

/** Whether `ToolDiff` has something to show for the call (so an empty card body is left out). */
export function hasToolDiff(call: ToolCallView): boolean {
  const { oldText, newText, content } = record(call.args)
  if (call.name === 'edit') return typeof oldText === 'string' && typeof newText === 'string'
  return call.name === 'write' && typeof content === 'string'
}

/** An edit's snippet; with the file's line numbers once the edit ran and logged where it starts. */
function EditDiff({
  oldText,
  newText,
  startLine,
}: {
  readonly oldText: string
  readonly newText: string
  readonly startLine: number | undefined
}) {
  const diff = useMemo(
    () => rowsOfSnippet(oldText, newText, startLine),
    [oldText, newText, startLine],
  )
  return <DiffView diff={diff} hasLineNumbers={startLine !== undefined} label="Edit diff" />
}

function ContentDiff({ content, label }: { readonly content: string; readonly label: string }) {
  const diff = useMemo(() => rowsOfChange('', content), [content])
  return <DiffView diff={diff} label={label} />
}

interface TurnFileDiffProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly turn: number
  readonly path: string
}

/** The file's patch from the turn's diff (from the turn's start, so it includes earlier edits). */
function TurnFileDiff({ api, sessionId, turn, path }: TurnFileDiffProps) {
  const { state, load } = useTurnDiff(api, sessionId, turn)
  const file = state.status === 'loaded' ? state.files.find((f) => f.path === path) : undefined
  const diff = useMemo(
    () => (file?.patch === undefined ? undefined : rowsOfPatch(file.patch)),
    [file],
  )
  switch (state.status) {
    case 'idle':
      return (
        <button type="button" className="link" onClick={load}>
          Show the diff of {path || 'the file'} in this turn
        </button>
      )
    case 'loading':
      return <p className="muted">Loading the diff…</p>
    case 'failed':
      return (
        <p className="muted">
          No diff yet: {state.message}{' '}
          <button type="button" className="link" onClick={load}>
            Try again
          </button>
        </p>
      )
    case 'loaded':
      if (!file) return <p className="muted">The turn records no change to {path}.</p>
      if (!diff) return <p className="muted">No diff is kept for {path} (binary or too large).</p>
      return <DiffView diff={diff} label={`Diff of ${path}`} />
  }
}
