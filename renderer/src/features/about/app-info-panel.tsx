import { useEffect, useState } from 'react'
import type { AppInfoResult, BridgeError, BridleApi } from '../../../../protocol/contract'

type State =
  | { status: 'loading' }
  | { status: 'ready'; info: AppInfoResult }
  | { status: 'failed'; error: BridgeError }

/** Shows what `app/info` says about the running Bridle, read through the contract. */
export function AppInfoPanel({ api }: { readonly api: BridleApi }) {
  const [state, setState] = useState<State>({ status: 'loading' })

  useEffect(() => {
    let isCurrent = true
    void api.call('app/info', {}).then((result) => {
      if (!isCurrent) return
      setState(
        result.ok
          ? { status: 'ready', info: result.value }
          : { status: 'failed', error: result.error },
      )
    })
    return () => {
      isCurrent = false
    }
  }, [api])

  if (state.status === 'loading') return <p aria-busy="true">Connecting to Bridle…</p>
  if (state.status === 'failed') {
    return (
      <p role="alert" className="error-row">
        Could not read the app info ({state.error.code}): {state.error.message}
      </p>
    )
  }
  const { info } = state
  return (
    <section className="card" aria-labelledby="app-info-title">
      <h2 id="app-info-title">About this Bridle</h2>
      <dl className="facts" data-testid="app-info">
        <dt>Version</dt>
        <dd data-testid="app-version">{info.version}</dd>
        <dt>Data folder</dt>
        <dd data-testid="app-data-dir">
          <code>{info.dataDir}</code>
        </dd>
        <dt>Event log</dt>
        <dd data-testid="app-database">
          <code>{info.databasePath}</code>
        </dd>
        <dt>Platform</dt>
        <dd data-testid="app-platform">
          {info.platform} ({info.arch})
        </dd>
        <dt>Runtime</dt>
        <dd>
          {Object.entries(info.versions)
            .map(([name, version]) => `${name} ${version}`)
            .join(' · ')}
        </dd>
        <dt>Connected by</dt>
        <dd data-testid="app-transport">
          {info.transport === 'ipc' ? 'Electron IPC' : 'loopback WebSocket'}
        </dd>
      </dl>
    </section>
  )
}
