import { useMemo, useState } from 'react'
import { buildSessionTree } from '../../state/session-tree'
import type { SessionNode } from '../../state/session-tree'
import { useShell } from '../../state/shell-context'
import { SessionRow } from './session-row'

/**
 * The project's sessions with their forks nested under them. Branches start open; a branch
 * can be folded, and the open session is highlighted wherever it is.
 */
export function SessionTree() {
  const sessions = useShell((s) => s.sessions)
  const cursor = useShell((s) => s.sessionsCursor)
  const isLoading = useShell((s) => s.sessionsLoading)
  const projectDir = useShell((s) => s.projectDir)
  const loadMore = useShell((s) => s.loadMoreSessions)
  const tree = useMemo(() => buildSessionTree(sessions), [sessions])

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
      <ul className="session-tree" aria-label="Session tree">
        {tree.map((node) => (
          <TreeNode key={node.session.id} node={node} depth={0} />
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

function TreeNode({ node, depth }: { readonly node: SessionNode; readonly depth: number }) {
  const [isFolded, setFolded] = useState(false)
  const hasChildren = node.children.length > 0
  return (
    <li className="tree-node">
      <SessionRow
        session={node.session}
        depth={depth}
        {...(hasChildren
          ? { fold: { isFolded, toggle: () => setFolded(!isFolded), count: node.children.length } }
          : {})}
      />
      {hasChildren && !isFolded && (
        <ul className="tree-children" aria-label={`Forks of ${node.session.title ?? 'session'}`}>
          {node.children.map((child) => (
            <TreeNode key={child.session.id} node={child} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  )
}
