import type { BridleApi } from '../../../../protocol/contract'
import { ApprovalSection } from './approval-section'
import { CompactionSection } from './compaction-section'
import { EndpointsSection } from './endpoints-section'
import { FormErrors } from './field'
import { McpSection } from './mcp'
import { SandboxSection } from './sandbox-section'
import { ThemeSection } from './theme-section'
import { useSettings } from './use-settings'
import './settings.css'

export interface SettingsPanelProps {
  readonly api: BridleApi
  /** The open project folder: its own defaults are offered with the global ones. */
  readonly projectDir?: string | undefined
}

/**
 * Endpoints, models, approvals, the sandbox, compaction and theme. Everything shown is the main process's
 * view (`settings/get`, then `settings/changed`); every change goes back as one whole config.
 */
export function SettingsPanel({ api, projectDir }: SettingsPanelProps) {
  const { state, save, reload } = useSettings(api)
  if (state.status === 'loading') {
    return (
      <div className="settings" aria-busy="true">
        <p className="muted">Reading the settings…</p>
      </div>
    )
  }
  if (state.status === 'failed') {
    // A broken config.json: say which fields, and keep the theme usable meanwhile.
    return (
      <div className="settings">
        <FormErrors
          message={`The settings could not be read: ${state.error.message}`}
          fields={state.error.fields ?? []}
        />
        <div className="settings-actions">
          <button type="button" onClick={reload}>
            Read again
          </button>
        </div>
        <ThemeSection />
      </div>
    )
  }
  const { view } = state
  return (
    <div className="settings">
      <EndpointsSection api={api} view={view} save={save} projectDir={projectDir} />
      <ApprovalSection view={view} save={save} />
      <SandboxSection view={view} save={save} />
      <McpSection api={api} projectDir={projectDir} />
      <CompactionSection view={view} save={save} />
      <ThemeSection />
      <p className="settings-hint settings-path">
        Saved in <code>{view.path}</code>
      </p>
    </div>
  )
}

// What other features use of settings, on purpose: first run sets up an endpoint with the same
// forms and edits, and the chat shows a model's capability card in the settings' words.
export { CapabilityCard } from './capability-card'
export {
  endpointIdWithUrl,
  withDefaultEndpoint,
  withDefaults,
  withDiscoveredServer,
} from './config-edit'
export { contextWindowText, toolSupportText } from './words'
export type { EndpointDraft } from './config-edit'
export { DiscoveredServers } from './discovered-servers'
export { requestMcpSection } from './mcp'
export { Field, FormErrors } from './field'
export * from './field-errors'
export { useDiscovery } from './use-discovery'
export { useSettings } from './use-settings'
export type { SaveSettings, SettingsHandle } from './use-settings'
export { windowSourceText } from './words'
