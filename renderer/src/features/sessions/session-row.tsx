import { useState } from 'react'
import type { SessionSummary } from '../../../../protocol/contract'
import { formatAge, sessionTitle } from '../../state/session-tree'
import { useShell } from '../../state/shell-context'
import { ForkIcon, PencilIcon, TrashIcon } from './icons'

export interface FoldControl {
  readonly isFolded: boolean
  readonly toggle: () => void
  readonly count: number
}

type Mode = 'view' | 'rename' | 'confirm-delete'

/**
 * One session in the tree: open it, rename it inline, or move it to the trash after a confirm.
 * The row says what the tree needs to be read without opening: title, fork point, messages, age.
 */
export function SessionRow({
  session,
  depth,
  fold,
  isActive = true,
  onFocus,
}: {
  readonly session: SessionSummary
  readonly depth: number
  readonly fold?: FoldControl
  /** The row Tab reaches in its tree (the others are reached with the arrow keys). */
  readonly isActive?: boolean
  readonly onFocus?: () => void
}) {
  const isOpen = useShell((s) => s.feed?.sessionId === session.id)
  const openSession = useShell((s) => s.openSession)
  const [mode, setMode] = useState<Mode>('view')
  const title = sessionTitle(session)
  const tabIndex = isActive ? 0 : -1

  return (
    <div
      className={isOpen ? 'session-row session-row-open' : 'session-row'}
      style={{ paddingLeft: 6 + depth * 14 }}
      data-session-id={session.id}
    >
      {fold ? (
        <button
          type="button"
          className="fold"
          tabIndex={-1}
          aria-expanded={!fold.isFolded}
          aria-label={`${fold.isFolded ? 'Show' : 'Hide'} ${fold.count} fork(s) of ${title}`}
          onClick={fold.toggle}
        >
          {fold.isFolded ? '▸' : '▾'}
        </button>
      ) : (
        <span className="fold-space" aria-hidden="true">
          {depth > 0 ? '↳' : ''}
        </span>
      )}
      {mode === 'rename' ? (
        <RenameForm session={session} onDone={() => setMode('view')} />
      ) : (
        <button
          type="button"
          className="session-open"
          tabIndex={tabIndex}
          aria-current={isOpen ? 'true' : undefined}
          aria-keyshortcuts="F2 Delete"
          onClick={() => void openSession(session.id)}
          onFocus={onFocus}
          onKeyDown={(event) => {
            if (event.key === 'F2') setMode('rename')
            else if (event.key === 'Delete') setMode('confirm-delete')
            else return
            event.preventDefault()
          }}
        >
          <span className="session-title">
            {session.isRunning && <span className="running-dot" aria-label="running" />}
            {title}
          </span>
          <span className="session-meta">{describe(session)}</span>
        </button>
      )}
      {mode === 'view' && (
        <span className="row-actions">
          <button
            type="button"
            className="icon"
            tabIndex={tabIndex}
            aria-label={`Rename ${title}`}
            title="Rename"
            onClick={() => setMode('rename')}
          >
            <PencilIcon />
          </button>
          <ForkButton session={session} title={title} tabIndex={tabIndex} />
          <button
            type="button"
            className="icon"
            tabIndex={tabIndex}
            aria-label={`Delete ${title}`}
            title="Move to trash"
            onClick={() => setMode('confirm-delete')}
          >
            <TrashIcon />
          </button>
        </span>
      )}
      {mode === 'confirm-delete' && (
        <ConfirmDelete session={session} onDone={() => setMode('view')} />
      )}
    </div>
  )
}

/**
 * Forks the whole session (its latest event included) and opens the fork: a branch to try
 * something else from here. Forking from an earlier message is the chat's "fork from here".
 */
function ForkButton({
  session,
  title,
  tabIndex,
}: {
  readonly session: SessionSummary
  readonly title: string
  readonly tabIndex: number
}) {
  const forkSession = useShell((s) => s.forkSession)
  return (
    <button
      type="button"
      className="icon"
      tabIndex={tabIndex}
      aria-label={`Fork ${title} at its last event`}
      title="Fork at the last event"
      disabled={session.eventCount === 0 || session.isRunning}
      onClick={() => void forkSession(session.id, session.eventCount)}
    >
      <ForkIcon />
    </button>
  )
}

function describe(session: SessionSummary): string {
  const parts = [
    `${session.messageCount} message${session.messageCount === 1 ? '' : 's'}`,
    formatAge(session.updatedAt, Date.now()),
  ]
  if (session.forkSeq !== null) parts.unshift(`fork at #${session.forkSeq}`)
  return parts.join(' · ')
}

function RenameForm({
  session,
  onDone,
}: {
  readonly session: SessionSummary
  readonly onDone: () => void
}) {
  const renameSession = useShell((s) => s.renameSession)
  const [title, setTitle] = useState(session.title ?? '')
  const save = () => {
    if (title !== (session.title ?? '')) void renameSession(session.id, title.trim())
    onDone()
  }
  return (
    <form
      className="rename"
      onSubmit={(event) => {
        event.preventDefault()
        save()
      }}
    >
      <input
        aria-label="Session title"
        value={title}
        maxLength={200}
        autoFocus
        onChange={(event) => setTitle(event.target.value)}
        onBlur={save}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation()
            onDone()
          }
        }}
      />
    </form>
  )
}

function ConfirmDelete({
  session,
  onDone,
}: {
  readonly session: SessionSummary
  readonly onDone: () => void
}) {
  const deleteSession = useShell((s) => s.deleteSession)
  return (
    <div className="confirm" role="group" aria-label="Confirm delete">
      <span>Move to trash?</span>
      <button
        type="button"
        className="danger"
        autoFocus
        onClick={() => {
          void deleteSession(session.id)
          onDone()
        }}
      >
        Delete
      </button>
      <button type="button" className="ghost" onClick={onDone}>
        Cancel
      </button>
    </div>
  )
}
