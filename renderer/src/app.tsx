import type { Bridge } from './bridge'
import { AppInfoPanel } from './features/about/app-info-panel'

export interface AppProps {
  readonly bridge: Bridge | { error: string }
}

export function App({ bridge }: AppProps) {
  return (
    <div className="app">
      <header className="app-header">
        <h1>Bridle</h1>
        <span className="app-tagline">an agent harness whose event log is the truth</span>
      </header>
      <main className="app-main" aria-label="Chat">
        {'error' in bridge ? (
          <p role="alert" className="error-row">
            {bridge.error}
          </p>
        ) : (
          <AppInfoPanel api={bridge.api} />
        )}
      </main>
    </div>
  )
}
