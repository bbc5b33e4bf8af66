import { useEffect, useState } from 'react'
import type { SessionSummary } from '../../../../protocol/contract'
import { formatAge, sessionTitle } from '../../state/session-tree'
import { useShell, useShellContext } from '../../state/shell-context'

/**
 * The project's trashed sessions, folded at the bottom of the sidebar, newest deletion first.
 * Read again whenever the set of live sessions changes (a delete, a restore); "Restore" puts one
 * back in the tree (the host announces it, and the tree takes it from there).
 */
export function Trash() {
  const { api } = useShellContext()
  const projectDir = useShell((s) => s.projectDir)
  // Which sessions are live, as one string: a delete or a restore changes it, a message does not.
  const liveIds = useShell((s) => s.sessions.map((session) => session.id).join('\n'))
  const [isOpen, setOpen] = useState(false)
  const [trashed, setTrashed] = useState<readonly SessionSummary[] | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)

  useEffect(() => {
    if (projectDir === undefined) return
    let isCurrent = true
    // The whole tree, trash included: every trashed session, not only the recently active.
    void api.call('session/tree', { projectDir, includeDeleted: true }).then((result) => {
      if (!isCurrent) return
      if (!result.ok) {
        setError(result.error.message)
        return
      }
      setError(undefined)
      setTrashed(
        result.value.sessions
          .filter((session) => session.deletedAt !== null)
          .sort((a, b) => (b.deletedAt ?? 0) - (a.deletedAt ?? 0)),
      )
    })
    return () => {
      isCurrent = false
    }
  }, [api, projectDir, liveIds])

  const restore = async (sessionId: string) => {
    const result = await api.call('session/restore', { sessionId })
    if (!result.ok) setError(`Could not restore: ${result.error.message}`)
    else setTrashed((old) => old?.filter((session) => session.id !== sessionId))
  }

  if (projectDir === undefined || trashed === undefined || trashed.length === 0) return null
  return (
    <section className="trash" aria-label="Trash">
      <button
        type="button"
        className="ghost trash-toggle"
        aria-expanded={isOpen}
        onClick={() => setOpen(!isOpen)}
      >
        {isOpen ? '▾' : '▸'} Trash ({trashed.length})
      </button>
      {isOpen && (
        <ul className="trash-list" aria-label="Trashed sessions">
          {trashed.map((session) => (
            <li key={session.id} className="trash-row">
              <span className="trash-title">
                {sessionTitle(session)}
                <span className="session-meta">
                  deleted {formatAge(session.deletedAt ?? session.updatedAt, Date.now())}
                </span>
              </span>
              <button
                type="button"
                aria-label={`Restore ${sessionTitle(session)}`}
                onClick={() => void restore(session.id)}
              >
                Restore
              </button>
            </li>
          ))}
        </ul>
      )}
      {error !== undefined && (
        <p role="alert" className="error-row">
          {error}
        </p>
      )}
    </section>
  )
}
