import { useShell } from '../../state/shell-context'
import { shortcutLabel } from '../../state/shortcuts'
import { ProjectPicker } from './project-picker'
import { SearchBox, SearchResults } from './search'
import { SessionTree } from './session-tree'
import { Trash } from './trash'

/**
 * The left side: which project, a new session or an imported one, search, and the project's
 * sessions as a tree.
 */
export function Sidebar() {
  const createSession = useShell((s) => s.createSession)
  const projectDir = useShell((s) => s.projectDir)
  const query = useShell((s) => s.search.query)
  const setImportOpen = useShell((s) => s.setImportOpen)
  return (
    <aside className="sidebar" aria-label="Sessions">
      <ProjectPicker />
      <div className="session-actions">
        <button
          type="button"
          className="primary new-session"
          disabled={projectDir === undefined}
          onClick={() => void createSession()}
          title={`New session (${shortcutLabel('N')})`}
        >
          New session
        </button>
        <button
          type="button"
          className="import-open"
          onClick={() => setImportOpen(true)}
          title="Import a session of Claude Code, Codex CLI, pi or DeepSeek Harness"
        >
          Import…
        </button>
      </div>
      <SearchBox />
      <div className="sidebar-scroll">
        {query.trim() === '' ? <SessionTree /> : <SearchResults />}
      </div>
      <Trash />
    </aside>
  )
}
