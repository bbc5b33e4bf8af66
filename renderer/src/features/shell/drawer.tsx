import { CheckpointsPanel } from '../checkpoints'
import type { DrawerPanel } from '../feed'
import { SettingsPanel } from '../settings'
import { TimelinePanel } from '../timeline'
import { useShell, useShellContext } from '../../state/shell-context'
import { useSessionPanelProps } from './panel-props'

const TABS: readonly { readonly id: DrawerPanel; readonly label: string }[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'checkpoints', label: 'Checkpoints' },
  { id: 'settings', label: 'Settings' },
]

/** The right drawer: one panel at a time, picked by its tab. */
export function Drawer() {
  const panel = useShell((s) => s.drawer.panel)
  const showPanel = useShell((s) => s.showPanel)
  return (
    <aside className="drawer" aria-label="Inspector">
      <div className="tabs" role="tablist" aria-label="Inspector panels">
        {TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={panel === tab.id}
            aria-controls={`panel-${tab.id}`}
            className={panel === tab.id ? 'tab tab-active' : 'tab'}
            onClick={() => showPanel(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <DrawerBody panel={panel} />
    </aside>
  )
}

function DrawerBody({ panel }: { readonly panel: DrawerPanel }) {
  const { api } = useShellContext()
  const props = useSessionPanelProps()
  const projectDir = useShell((s) => s.projectDir)
  const label = TABS.find((tab) => tab.id === panel)?.label ?? panel
  const body =
    panel === 'settings' ? (
      <SettingsPanel api={api} projectDir={projectDir} />
    ) : props === undefined ? (
      <p className="muted empty">Open a session to see its {label.toLowerCase()}.</p>
    ) : panel === 'timeline' ? (
      <TimelinePanel {...props} />
    ) : (
      <CheckpointsPanel {...props} />
    )
  return (
    <section className="drawer-body" id={`panel-${panel}`} aria-label={label}>
      {body}
    </section>
  )
}
