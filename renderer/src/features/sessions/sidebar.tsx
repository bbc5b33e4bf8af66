import { useShell } from '../../state/shell-context'
import { shortcutLabel } from '../../state/shortcuts'
import { ProjectPicker } from './project-picker'
import { SearchBox, SearchResults } from './search'
import { SessionTree } from './session-tree'
import { Trash } from './trash'

/** The left side: which project, a new session, search, and the project's sessions as a tree. */
export function Sidebar() {
  const createSession = useShell((s) => s.createSession)
  const projectDir = useShell((s) => s.projectDir)
  const query = useShell((s) => s.search.query)
  return (
    <aside className="sidebar" aria-label="Sessions">
      <ProjectPicker />
      <button
        type="button"
        className="primary new-session"
        disabled={projectDir === undefined}
        onClick={() => void createSession()}
        title={`New session (${shortcutLabel('N')})`}
      >
        New session
      </button>
      <SearchBox />
      <div className="sidebar-scroll">
        {query.trim() === '' ? <SessionTree /> : <SearchResults />}
      </div>
      <Trash />
    </aside>
  )
}
