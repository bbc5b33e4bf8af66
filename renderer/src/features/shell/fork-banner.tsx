import { useEffect, useState } from 'react'
import type { SessionSummary } from '../../../../protocol/contract'
import { sessionTitle, treeParentOf } from '../../state/session-tree'
import { useShell, useShellContext } from '../../state/shell-context'

/**
 * Where a fork branched, with the way back: "Forked from <parent> at event N"; for a subagent,
 * "Subagent started by a task call in <parent>". A fork offers to put the files back to its
 * point (forking leaves the files as they are). The parent's title comes
 * from the list, or from `session/get` when the parent is not paged in.
 */
export function ForkBanner({ session }: { readonly session: SessionSummary }) {
  const parentId = treeParentOf(session)
  const openSession = useShell((s) => s.openSession)
  const openRestore = useShell((s) => s.openRestore)
  const parentTitle = useParentTitle(parentId)
  if (parentId === null) return null
  // The fork holds the parent's events before forkSeq: its point is the last of them.
  const forkEnd = session.forkSeq !== null && session.forkSeq > 0 ? session.forkSeq - 1 : undefined
  if (session.spawnedBy !== null) {
    return (
      <div className="fork-banner" role="note" aria-label="Subagent origin">
        <span>
          Subagent started by a task call in <strong>{parentTitle ?? 'its parent'}</strong>
        </span>
        <button type="button" className="link" onClick={() => void openSession(parentId)}>
          Open parent
        </button>
      </div>
    )
  }
  return (
    <div className="fork-banner" role="note" aria-label="Fork origin">
      <span>
        Forked from <strong>{parentTitle ?? 'its parent'}</strong>
        {session.forkSeq !== null && <> at event {session.forkSeq}</>}
      </span>
      {forkEnd !== undefined && (
        <button
          type="button"
          className="link"
          title="Put the project's files back to how they were at the fork point"
          onClick={() =>
            openRestore({
              kind: 'restore',
              sessionId: session.id,
              toSeq: forkEnd,
              where: `at the fork point (event ${forkEnd})`,
            })
          }
        >
          Restore files to the fork point
        </button>
      )}
      <button type="button" className="link" onClick={() => void openSession(parentId)}>
        Open parent
      </button>
    </div>
  )
}

function useParentTitle(parentId: string | null): string | undefined {
  const { api } = useShellContext()
  const listed = useShell((s) => s.sessions.find((candidate) => candidate.id === parentId))
  const [fetched, setFetched] = useState<{ id: string; title: string }>()
  useEffect(() => {
    if (parentId === null || listed) return
    let isCurrent = true
    void api.call('session/get', { sessionId: parentId }).then((result) => {
      if (isCurrent && result.ok) {
        setFetched({ id: parentId, title: sessionTitle(result.value.session) })
      }
    })
    return () => {
      isCurrent = false
    }
  }, [api, parentId, listed])
  if (listed) return sessionTitle(listed)
  return fetched?.id === parentId ? fetched.title : undefined
}
