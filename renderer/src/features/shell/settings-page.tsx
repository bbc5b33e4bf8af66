import { ArrowLeft } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { SettingsPanel } from '../settings'
import { useShell, useShellContext } from '../../state/shell-context'
import { keysLabel } from '../../state/shortcuts'

/**
 * The settings as a page of their own, in place of the chat: a heading, the way back, then the
 * sections. Focus moves to the heading on arrival so a screen reader says where it is.
 */
export function SettingsPage() {
  const { api } = useShellContext()
  const projectDir = useShell((s) => s.projectDir)
  const closeSettings = useShell((s) => s.closeSettings)
  const headingRef = useRef<HTMLHeadingElement>(null)
  useEffect(() => headingRef.current?.focus(), [])
  return (
    <main className="settings-page" aria-labelledby="settings-title">
      <div className="settings-page-inner">
        <header className="settings-page-head">
          <button
            type="button"
            className="ghost"
            onClick={closeSettings}
            title={`Back to chat (${keysLabel('back')})`}
          >
            <ArrowLeft aria-hidden="true" size={16} />
            Back to chat
          </button>
          <h1 id="settings-title" ref={headingRef} tabIndex={-1}>
            Settings
          </h1>
          <p className="muted">
            How Bridle reaches your models, what the agent may do without asking, and how it looks.
          </p>
        </header>
        <SettingsPanel api={api} projectDir={projectDir} />
      </div>
    </main>
  )
}
