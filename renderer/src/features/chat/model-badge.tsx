import { useEffect, useId, useRef, useState } from 'react'
import type { ModelProfileView } from '../../../../protocol/contract'
import { CapabilityCard } from '../settings'
import type { DrawerPanel } from '../feed'
import { badgeServer, profileFacts, profileQuirks, profileServer } from './profile-words'
import './model-status.css'

interface ModelBadgeProps {
  readonly profile: ModelProfileView
  readonly onShowPanel: (panel: DrawerPanel) => void
}

/**
 * The session's model in the status bar: its name, its server, and only what is unusual (tools
 * as text, reasoning sent back, a window learnt from a cut). A click opens a small panel with
 * the profile's facts and the last capability test's card; Escape or a click elsewhere closes it.
 */
export function ModelBadge({ profile, onShowPanel }: ModelBadgeProps) {
  const [isOpen, setOpen] = useState(false)
  const panelId = useId()
  const button = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLDivElement>(null)
  const quirks = profileQuirks(profile)
  const server = profileServer(profile)

  useEffect(() => {
    if (!isOpen) return
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target
      if (!(target instanceof Node)) return
      if (panel.current?.contains(target) || button.current?.contains(target)) return
      setOpen(false)
    }
    document.addEventListener('pointerdown', onPointerDown)
    return () => document.removeEventListener('pointerdown', onPointerDown)
  }, [isOpen])

  const close = () => {
    setOpen(false)
    button.current?.focus()
  }

  return (
    <>
      <button
        ref={button}
        type="button"
        className={`model-badge${quirks.length > 0 ? ' has-quirks' : ''}`}
        aria-expanded={isOpen}
        aria-controls={panelId}
        // The name starts with the visible words in their order (axe: label-content-name-mismatch).
        aria-label={[profile.model, badgeServer(profile), ...quirks, 'model details'].join(', ')}
        title={[`${profile.model} on ${server}`, ...quirks].join(' · ')}
        onClick={() => setOpen(!isOpen)}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && isOpen) close()
        }}
      >
        {/* The spaces keep the words apart in the text a screen reader or axe reads. */}
        <span className="model-badge-name">{profile.model}</span>{' '}
        <span className="model-badge-server">{badgeServer(profile)}</span>{' '}
        {quirks.length > 0 && <span className="model-badge-quirks">{quirks.join(' · ')}</span>}
      </button>
      {isOpen && (
        <div
          ref={panel}
          id={panelId}
          className="model-panel"
          role="region"
          aria-label="Model profile"
          onKeyDown={(event) => {
            if (event.key === 'Escape') close()
          }}
        >
          <div className="model-panel-head">
            <h3>How this session talks to its model</h3>
            <button type="button" className="icon" aria-label="Close" onClick={close}>
              ✕
            </button>
          </div>
          <dl className="facts model-facts">
            {profileFacts(profile).map((fact) => (
              <div key={fact.label} className="model-fact">
                <dt>{fact.label}</dt>
                <dd>{fact.text}</dd>
              </div>
            ))}
          </dl>
          {profile.probe === undefined ? (
            <p className="model-panel-hint">
              No capability test of this model yet.{' '}
              <button type="button" className="link" onClick={() => onShowPanel('settings')}>
                Test it in Settings
              </button>
            </p>
          ) : (
            <CapabilityCard report={profile.probe} endpointId={profile.endpointId} />
          )}
        </div>
      )}
    </>
  )
}
