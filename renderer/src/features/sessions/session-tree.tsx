import { useId, useMemo, useRef, useState } from 'react'
import type { KeyboardEvent } from 'react'
import {
  buildSessionTree,
  childrenLabel,
  forkCount,
  hiddenText,
  sessionTitle,
  treeMove,
  visibleSessions,
} from '../../state/session-tree'
import type { SessionNode, TreeKey } from '../../state/session-tree'
import { useShell } from '../../state/shell-context'
import { SessionItem } from './session-row'
import './sessions.css'

const TREE_KEYS: ReadonlySet<string> = new Set<TreeKey>([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
])

/** What every row of the tree shares: folding, and which row holds the keyboard focus. */
interface TreeState {
  readonly folded: ReadonlySet<string>
  readonly setFolded: (id: string, isFolded: boolean) => void
  /** The one row reached with Tab (a roving tabindex); arrows move it. */
  readonly activeId: string | undefined
  readonly setActive: (id: string) => void
}

/**
 * The project's sessions as an ARIA tree, each fork nested under its parent with a branch line
 * drawn from the parent (hover the fork's meta line for the message it starts after), and each
 * subagent under the session that started it, marked "subagent". Branches
 * start open; a folded one says how many forks it hides. The open session is the selected item
 * wherever it is. The keyboard moves as in a tree view: Tab enters at one session, Up and Down move, Right and Left unfold and fold (or
 * go into the forks and back to the parent), Home and End; Enter opens, F2 renames, Delete
 * moves to the trash.
 */
export function SessionTree() {
  const sessions = useShell((s) => s.sessions)
  const cursor = useShell((s) => s.sessionsCursor)
  const isLoading = useShell((s) => s.sessionsLoading)
  const projectDir = useShell((s) => s.projectDir)
  const loadMore = useShell((s) => s.loadMoreSessions)
  const openId = useShell((s) => s.feed?.sessionId)
  const tree = useMemo(() => buildSessionTree(sessions), [sessions])
  const [folded, setFoldedSet] = useState<ReadonlySet<string>>(new Set())
  // The last row focused, while the same session stays open: opening one moves the stop there.
  const [focused, setFocused] = useState<{ id: string; openId: string | undefined }>()
  const focusedId = focused?.openId === openId ? focused?.id : undefined
  const setActive = (id: string) => setFocused({ id, openId })
  const list = useRef<HTMLUListElement>(null)
  const visible = visibleSessions(tree, folded)
  const isVisible = (id: string | undefined) =>
    id !== undefined && visible.some((row) => row.node.session.id === id)
  // The row Tab reaches: the last one focused, else the open session, else the first.
  const activeId = isVisible(focusedId)
    ? focusedId
    : isVisible(openId)
      ? openId
      : visible[0]?.node.session.id
  const state: TreeState = {
    folded,
    setFolded: (id, isFolded) =>
      setFoldedSet((old) => {
        const next = new Set(old)
        if (isFolded) next.add(id)
        else next.delete(id)
        return next
      }),
    activeId,
    setActive,
  }

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const target = event.target as HTMLElement
    if (!TREE_KEYS.has(event.key) || target.getAttribute('role') !== 'treeitem') return
    const fromId = target.dataset['sessionId']
    if (fromId === undefined) return
    const move = treeMove(tree, folded, fromId, event.key as TreeKey)
    event.preventDefault()
    if (move === undefined) return
    if (move.kind === 'fold') {
      state.setFolded(move.id, move.isFolded)
      return
    }
    setActive(move.id)
    list.current?.querySelector<HTMLElement>(`[data-session-id="${CSS.escape(move.id)}"]`)?.focus()
  }

  if (projectDir === undefined) return null
  if (tree.length === 0) {
    return (
      <p className="muted empty">
        {isLoading ? 'Loading sessions…' : 'No sessions yet: send a message to start one.'}
      </p>
    )
  }
  return (
    <>
      {/* The arrow keys of the items inside are handled here. */}
      <ul
        className="session-tree"
        role="tree"
        aria-label="Session tree"
        ref={list}
        onKeyDown={onKeyDown}
      >
        {tree.map((node, index) => (
          <TreeNode
            key={node.session.id}
            node={node}
            depth={0}
            position={{ index: index + 1, count: tree.length }}
            tree={state}
          />
        ))}
      </ul>
      {cursor !== null && (
        <button
          type="button"
          className="ghost load-more"
          disabled={isLoading}
          onClick={() => void loadMore()}
        >
          {isLoading ? 'Loading…' : 'Show older sessions'}
        </button>
      )}
    </>
  )
}

function TreeNode({
  node,
  depth,
  position,
  tree,
}: {
  readonly node: SessionNode
  readonly depth: number
  readonly position: { readonly index: number; readonly count: number }
  readonly tree: TreeState
}) {
  const id = node.session.id
  const isFolded = tree.folded.has(id)
  const hasChildren = node.children.length > 0
  const groupId = useId()
  return (
    <SessionItem
      groupId={groupId}
      session={node.session}
      depth={depth}
      position={position}
      isActive={tree.activeId === id}
      onFocus={() => tree.setActive(id)}
      {...(hasChildren
        ? {
            fold: {
              isFolded,
              toggle: () => tree.setFolded(id, !isFolded),
              count: forkCount(node),
              text: hiddenText(node),
            },
          }
        : {})}
    >
      {hasChildren && !isFolded && (
        <ul
          id={groupId}
          className="tree-children"
          role="group"
          aria-label={childrenLabel(node, sessionTitle(node.session))}
        >
          {node.children.map((child, index) => (
            <TreeNode
              key={child.session.id}
              node={child}
              depth={depth + 1}
              position={{ index: index + 1, count: node.children.length }}
              tree={tree}
            />
          ))}
        </ul>
      )}
    </SessionItem>
  )
}
