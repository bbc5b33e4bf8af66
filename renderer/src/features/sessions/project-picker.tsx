import { useState } from 'react'
import { useShell, useShellContext } from '../../state/shell-context'
import { Select } from '../../ui/select'

/**
 * The project: one of the recent folders, or another by path. In the app, "Choose…" opens the
 * OS folder picker; a browser has none, so there the path is typed.
 */
export function ProjectPicker() {
  const { kind } = useShellContext()
  const projects = useShell((s) => s.projects)
  const projectDir = useShell((s) => s.projectDir)
  const selectProject = useShell((s) => s.selectProject)
  const openProject = useShell((s) => s.openProject)
  const [isOpening, setOpening] = useState(false)
  const [path, setPath] = useState('')

  return (
    <div className="project-picker">
      <div className="field">
        <span aria-hidden="true">Project</span>
        <Select
          label="Project"
          value={projectDir}
          options={projects.map((project) => ({
            value: project.path,
            label: project.name || project.path,
            title: project.path,
          }))}
          onValueChange={selectProject}
          placeholder="No project open"
          disabled={projects.length === 0}
        />
      </div>
      {isOpening ? (
        <form
          className="open-project"
          onSubmit={(event) => {
            event.preventDefault()
            const trimmed = path.trim()
            if (trimmed === '') return
            void openProject(trimmed).then(() => {
              setOpening(false)
              setPath('')
            })
          }}
        >
          <input
            aria-label="Folder path"
            placeholder="/path/to/project or ~/project"
            value={path}
            onChange={(event) => setPath(event.target.value)}
            autoFocus
          />
          <button type="submit" disabled={path.trim() === ''}>
            Open
          </button>
          <button type="button" className="ghost" onClick={() => setOpening(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="row">
          <button type="button" className="ghost" onClick={() => setOpening(true)}>
            Open folder by path…
          </button>
          {kind === 'ipc' && (
            <button type="button" className="ghost" onClick={() => void openProject()}>
              Choose…
            </button>
          )}
        </div>
      )}
    </div>
  )
}
