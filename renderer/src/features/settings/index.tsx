import type { BridleApi } from '../../../../preload/contract'

export interface SettingsPanelProps {
  readonly api: BridleApi
}

/** Endpoints, models, approvals, compaction, theme (placeholder: being built). */
export function SettingsPanel(_props: SettingsPanelProps) {
  return <p className="muted">Settings</p>
}
