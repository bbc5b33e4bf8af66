import type { Bridge } from './bridge'
import { NoBridge } from './features/shell/connection'
import { Shell } from './features/shell/shell'

export interface AppProps {
  readonly bridge: Bridge | { error: string }
}

/** The page: the shell over a bridge, or what to do when there is no bridge at all. */
export function App({ bridge }: AppProps) {
  if ('error' in bridge) return <NoBridge message={bridge.error} />
  return <Shell bridge={bridge} />
}
