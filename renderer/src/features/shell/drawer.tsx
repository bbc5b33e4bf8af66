import { CheckpointsPanel } from '../checkpoints'
import { TimelinePanel } from '../timeline'
import { useShell } from '../../state/shell-context'
import type { InspectorPanel } from '../../state/shell-store'
import { keysLabel } from '../../state/shortcuts'
import type { ActionName } from '../../state/shortcuts'
import { useSessionPanelProps } from './panel-props'

const TABS: readonly {
  readonly id: InspectorPanel
  readonly label: string
  readonly action: ActionName
}[] = [
  { id: 'timeline', label: 'Timeline', action: 'show-timeline' },
  { id: 'checkpoints', label: 'Checkpoints', action: 'show-checkpoints' },
]

/** The inspector: the open session's timeline or checkpoints, one at a time, picked by its tab. */
export function Drawer() {
  const panel = useShell((s) => s.drawer.panel)
  const showPanel = useShell((s) => s.showPanel)
  return (
    <aside className="drawer" aria-label="Inspector">
      <div
        className="tabs"
        role="tablist"
        aria-label="Inspector panels"
        onKeyDown={(event) => {
          // Arrows move between the tabs, as a tablist does.
          if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return
          const index = TABS.findIndex((tab) => tab.id === panel)
          const step = event.key === 'ArrowRight' ? 1 : TABS.length - 1
          const next = TABS[(index + step) % TABS.length]
          if (!next) return
          showPanel(next.id)
          document.getElementById(`tab-${next.id}`)?.focus()
        }}
      >
        {TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={panel === tab.id}
            aria-controls={`panel-${tab.id}`}
            tabIndex={panel === tab.id ? 0 : -1}
            className={panel === tab.id ? 'tab tab-active' : 'tab'}
            onClick={() => showPanel(tab.id)}
            title={`${tab.label} (${keysLabel(tab.action)})`}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <DrawerBody panel={panel} />
    </aside>
  )
}

function DrawerBody({ panel }: { readonly panel: InspectorPanel }) {
  const props = useSessionPanelProps()
  const label = TABS.find((tab) => tab.id === panel)?.label ?? panel
  const body =
    props === undefined ? (
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
