import { useShell } from '../../state/shell-context'
import { shortcutLabel } from '../../state/shortcuts'

/** The app's name, where it is, and the buttons for the inspector and help. */
export function TopBar({ onHelp }: { readonly onHelp: () => void }) {
  const projectDir = useShell((s) => s.projectDir)
  const isDrawerOpen = useShell((s) => s.drawer.isOpen)
  const toggleDrawer = useShell((s) => s.toggleDrawer)
  return (
    <header className="top-bar">
      <span className="brand">Bridle</span>
      <span className="top-bar-project" title={projectDir}>
        {projectDir ?? 'No project open'}
      </span>
      <span className="spacer" />
      <button
        type="button"
        className="ghost"
        aria-pressed={isDrawerOpen}
        onClick={toggleDrawer}
        title={`Show or hide the inspector (${shortcutLabel('I')})`}
      >
        Inspector
      </button>
      <button
        type="button"
        className="ghost"
        onClick={onHelp}
        title="Shortcuts and about (? or F1)"
      >
        Help
      </button>
    </header>
  )
}
