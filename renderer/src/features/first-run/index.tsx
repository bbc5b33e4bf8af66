import type { BridleApi } from '../../../../preload/contract'

export interface FirstRunProps {
  readonly api: BridleApi
  /** Called once an endpoint is configured (the shell then shows the normal layout). */
  readonly onDone: () => void
}

/** Shown when no endpoint is configured (placeholder: being built). */
export function FirstRun(_props: FirstRunProps) {
  return <p className="muted">No model endpoint is configured yet.</p>
}
