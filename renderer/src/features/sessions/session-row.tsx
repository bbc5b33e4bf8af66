import { Bot, ChevronDown, ChevronRight, GitFork, Pencil, Trash2 } from 'lucide-react'
import { useId, useRef, useState } from 'react'
import type { ReactNode } from 'react'
import type { SessionSummary } from '../../../../protocol/contract'
import { formatAge, isSubagent, sessionTitle } from '../../state/session-tree'
import { useShell } from '../../state/shell-context'
import { DeleteDialog } from './delete-dialog'
import { ForkPoint } from './fork-point'
import { RowMenu } from './row-menu'

export interface FoldControl {
  readonly isFolded: boolean
  readonly toggle: () => void
  /** Forks and subagents below this session at any depth. */
  readonly count: number
  /** What the folded row says it hides ("2 forks, 1 subagent"). */
  readonly text: string
}

type Mode = 'view' | 'rename' | 'confirm-delete'

/**
 * One session as a `treeitem` of the session tree: the item itself is the one focusable element
 * (a roving tabindex), named by its title and meta line. Its buttons (rename, fork, delete, the
 * fold chevron) are for the pointer and stay out of the Tab order, so nothing interactive is
 * reachable inside the item; the keyboard has Enter (open), F2 (rename), Delete (trash), the
 * arrows (fold, unfold) and Shift+F10 or the Menu key (a menu of the row's actions) instead. `children` is the `group` of its forks, a sibling of the item (in
 * the item's `li`) that the item owns, so the item's name is its own text only.
 */
export function SessionItem({
  session,
  depth,
  position,
  fold,
  isActive = true,
  onFocus,
  groupId,
  children,
}: {
  readonly session: SessionSummary
  readonly depth: number
  /** 1-based place among its siblings, and how many there are. */
  readonly position: { readonly index: number; readonly count: number }
  readonly fold?: FoldControl
  /** The item Tab reaches in its tree (the others are reached with the arrow keys). */
  readonly isActive?: boolean
  readonly onFocus?: () => void
  /** The id of `children`, the group of forks. */
  readonly groupId?: string
  readonly children?: ReactNode
}) {
  const isOpen = useShell((s) => s.feed?.sessionId === session.id)
  const openSession = useShell((s) => s.openSession)
  const [mode, setMode] = useState<Mode>('view')
  const [isMenuOpen, setMenuOpen] = useState(false)
  const item = useRef<HTMLDivElement>(null)
  const ids = useId()
  const title = sessionTitle(session)
  const isFolded = fold?.isFolded === true
  // Named by its own visible words in their order (axe: label-content-name-mismatch), with
  // "running" (hidden, the dot shows it) last so the visible words stay together.
  const labelledBy = [
    `${ids}-title`,
    `${ids}-meta`,
    ...(isFolded ? [`${ids}-count`] : []),
    ...(session.isRunning ? [`${ids}-running`] : []),
  ]
  const backToItem = () => {
    setMode('view')
    item.current?.focus()
  }

  return (
    <li
      role="none"
      className={
        depth === 0
          ? 'tree-node'
          : isSubagent(session)
            ? 'tree-node tree-subagent'
            : 'tree-node tree-fork'
      }
    >
      <div
        ref={item}
        role="treeitem"
        className={isOpen ? 'session-row session-row-open' : 'session-row'}
        aria-level={depth + 1}
        aria-posinset={position.index}
        aria-setsize={position.count}
        aria-expanded={fold === undefined ? undefined : !fold.isFolded}
        aria-selected={isOpen}
        aria-labelledby={labelledBy.join(' ')}
        // The forks' group is the item's sibling, owned by it: the item's own text is its name.
        aria-owns={fold !== undefined && !fold.isFolded ? groupId : undefined}
        aria-keyshortcuts="Enter F2 Delete Shift+F10 ContextMenu"
        tabIndex={isActive ? 0 : -1}
        data-session-id={session.id}
        onFocus={(event) => {
          if (event.target === event.currentTarget) onFocus?.()
        }}
        onKeyDown={(event) => {
          // Keys from inside (the rename input) are not this item's.
          if (event.target !== event.currentTarget) return
          if (event.key === 'Enter') void openSession(session.id)
          else if (event.key === 'F2') setMode('rename')
          else if (event.key === 'Delete') setMode('confirm-delete')
          else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey))
            setMenuOpen(true)
          else return
          event.preventDefault()
        }}
        onClick={() => {
          if (mode !== 'rename') void openSession(session.id)
        }}
        onContextMenu={(event) => {
          if (mode !== 'view') return
          event.preventDefault()
          setMenuOpen(true)
        }}
      >
        {fold ? (
          <span
            className="fold"
            aria-hidden="true"
            onClick={(event) => {
              event.stopPropagation()
              fold.toggle()
            }}
          >
            {fold.isFolded ? <ChevronRight size={14} /> : <ChevronDown size={14} />}
          </span>
        ) : (
          <span className="fold-space" aria-hidden="true" />
        )}
        {mode === 'rename' ? (
          <RenameForm session={session} onDone={backToItem} onBlurSave={() => setMode('view')} />
        ) : (
          <div className="session-open">
            <span className="session-title" id={`${ids}-title`}>
              {session.isRunning && <span className="running-dot" aria-hidden="true" />}
              {title}
            </span>{' '}
            <ForkPoint session={session}>
              <span className="session-meta" id={`${ids}-meta`}>
                {isSubagent(session) && (
                  <span
                    className="subagent-badge"
                    title="A subagent: a task call of the session above started it"
                  >
                    <Bot size={12} aria-hidden="true" />
                    subagent
                  </span>
                )}
                {isSubagent(session) && ' · '}
                {describe(session)}
              </span>
            </ForkPoint>
          </div>
        )}
        {fold?.isFolded === true && ' '}
        {fold?.isFolded === true && (
          <span className="fork-count" id={`${ids}-count`} title="Folded forks and subagents">
            {fold.text}
          </span>
        )}
        {session.isRunning && (
          <span className="visually-hidden" id={`${ids}-running`}>
            running
          </span>
        )}
        {mode !== 'rename' && (
          // For the pointer only: the keyboard has F2 and Delete on the item, and names inside
          // the item would not match its own (axe: label-content-name-mismatch). Kept while the
          // delete dialog is open: its focus goes back through the button to the item.
          <span className="row-actions" aria-hidden="true">
            <button
              type="button"
              className="icon"
              tabIndex={-1}
              aria-label={`Rename ${title}`}
              aria-keyshortcuts="F2"
              title="Rename (F2)"
              onClick={(event) => {
                event.stopPropagation()
                setMode('rename')
              }}
            >
              <Pencil size={14} aria-hidden="true" />
            </button>
            <ForkButton session={session} title={title} />
            <button
              type="button"
              className="icon"
              tabIndex={-1}
              aria-label={`Delete ${title}`}
              aria-keyshortcuts="Delete"
              title="Move to trash (Delete)"
              onClick={(event) => {
                event.stopPropagation()
                setMode('confirm-delete')
              }}
            >
              <Trash2 size={14} aria-hidden="true" />
            </button>
          </span>
        )}
        <RowMenu
          session={session}
          title={title}
          isOpen={isMenuOpen}
          onOpenChange={setMenuOpen}
          onRename={() => setMode('rename')}
          onDelete={() => setMode('confirm-delete')}
          onClosed={() => {
            // The rename field and the delete dialog take the focus themselves.
            if (mode === 'view') item.current?.focus()
          }}
        />
      </div>
      <DeleteDialog
        sessionId={session.id}
        title={title}
        isOpen={mode === 'confirm-delete'}
        onClose={() => setMode('view')}
      />
      {children}
    </li>
  )
}

/**
 * Forks the whole session (its latest event included) and opens the fork: a branch to try
 * something else from here. Forking from an earlier message is the chat's "fork from here".
 */
function ForkButton({
  session,
  title,
}: {
  readonly session: SessionSummary
  readonly title: string
}) {
  const forkSession = useShell((s) => s.forkSession)
  return (
    <button
      type="button"
      className="icon"
      tabIndex={-1}
      aria-label={`Fork ${title} at its last event`}
      title="Fork at the last event"
      disabled={session.eventCount === 0 || session.isRunning}
      onClick={(event) => {
        event.stopPropagation()
        void forkSession(session.id, session.eventCount)
      }}
    >
      <GitFork size={14} aria-hidden="true" />
    </button>
  )
}

function describe(session: SessionSummary): string {
  const messages = `${session.messageCount} message${session.messageCount === 1 ? '' : 's'}`
  // A subagent's row is narrow (nested, with its badge): its parent's row says when.
  if (isSubagent(session)) return messages
  const parts = [messages, formatAge(session.updatedAt, Date.now())]
  // A subagent seeded with its parent's history has a fork point too, but is not a fork.
  if (session.forkSeq !== null && !isSubagent(session)) parts.unshift(`fork at #${session.forkSeq}`)
  return parts.join(' · ')
}

/**
 * The title in place. Enter saves and Escape cancels, both giving the focus back to the item;
 * leaving the field by pointer saves where the focus went.
 */
function RenameForm({
  session,
  onDone,
  onBlurSave,
}: {
  readonly session: SessionSummary
  readonly onDone: () => void
  readonly onBlurSave: () => void
}) {
  const renameSession = useShell((s) => s.renameSession)
  const [title, setTitle] = useState(session.title ?? '')
  const isClosing = useRef(false)
  const save = () => {
    if (title !== (session.title ?? '')) void renameSession(session.id, title.trim())
  }
  return (
    <form
      className="rename"
      onClick={(event) => event.stopPropagation()}
      onSubmit={(event) => {
        event.preventDefault()
        isClosing.current = true
        save()
        onDone()
      }}
    >
      <input
        aria-label="Session title"
        value={title}
        maxLength={200}
        autoFocus
        onChange={(event) => setTitle(event.target.value)}
        onBlur={() => {
          if (isClosing.current) return
          save()
          onBlurSave()
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation()
            event.preventDefault()
            isClosing.current = true
            onDone()
          }
        }}
      />
    </form>
  )
}
