import { CircleHelp, FolderOpen, PanelLeft, PanelRight, Settings } from 'lucide-react'
import { useShell } from '../../state/shell-context'
import { keysLabel } from '../../state/shortcuts'
import { IconButton } from '../../ui/icon-button'

const ICON = { size: 16, 'aria-hidden': true } as const

/** The app's name, where it is, and the buttons for the sessions, inspector, settings and help. */
export function TopBar({
  isNarrow,
  onToggleSidebar,
  onHelp,
}: {
  readonly isNarrow: boolean
  readonly onToggleSidebar: () => void
  readonly onHelp: () => void
}) {
  const projectDir = useShell((s) => s.projectDir)
  const isDrawerOpen = useShell((s) => s.drawer.isOpen)
  const sidebar = useShell((s) => s.sidebar)
  const page = useShell((s) => s.page)
  const toggleDrawer = useShell((s) => s.toggleDrawer)
  const openSettings = useShell((s) => s.openSettings)
  const closeSettings = useShell((s) => s.closeSettings)
  const isChat = page === 'chat'
  return (
    <header className="top-bar">
      {isChat && (
        <IconButton
          className="ghost bar-button"
          isLabelShown
          icon={<PanelLeft {...ICON} />}
          label="Sessions"
          hint={`Show or hide the sessions (${keysLabel('toggle-sidebar')})`}
          aria-expanded={isNarrow ? sidebar.isSheetOpen : sidebar.isOpen}
          onClick={onToggleSidebar}
        />
      )}
      <span className="brand">Bridle</span>
      <span className="top-bar-project" title={projectDir}>
        <FolderOpen {...ICON} />
        {projectDir ?? 'No project open'}
      </span>
      <span className="spacer" />
      {isChat && (
        <IconButton
          className="ghost bar-button"
          isLabelShown
          icon={<PanelRight {...ICON} />}
          label="Inspector"
          hint={`Timeline and checkpoints (${keysLabel('toggle-inspector')})`}
          aria-pressed={isDrawerOpen}
          onClick={toggleDrawer}
        />
      )}
      <IconButton
        className="ghost bar-button"
        isLabelShown
        icon={<Settings {...ICON} />}
        label="Settings"
        hint={`Endpoints, approvals, theme (${keysLabel('open-settings')})`}
        aria-pressed={!isChat}
        onClick={isChat ? openSettings : closeSettings}
      />
      <IconButton
        className="ghost bar-button"
        isLabelShown
        icon={<CircleHelp {...ICON} />}
        label="Help"
        hint={`Shortcuts and about (${keysLabel('help')})`}
        onClick={onHelp}
      />
    </header>
  )
}
