import type { DiscoveredServer } from '../../../../protocol/contract'
import { modelsSummary, serverKindName } from './words'

export interface DiscoveredServersProps {
  readonly servers: readonly DiscoveredServer[]
  /** The endpoint id a server is configured as already, if it is. */
  readonly configuredAs: (server: DiscoveredServer) => string | undefined
  /** The button's words, e.g. "Add" or "Use this server". */
  readonly actionLabel: string
  readonly onPick: (server: DiscoveredServer) => void
  readonly isBusy?: boolean
}

/** Found local servers (kind, address, models), each with one button to add it. */
export function DiscoveredServers({
  servers,
  configuredAs,
  actionLabel,
  onPick,
  isBusy = false,
}: DiscoveredServersProps) {
  return (
    <ul className="settings-servers" aria-label="Local servers found">
      {servers.map((server) => {
        const existing = configuredAs(server)
        const name = serverKindName(server.kind)
        return (
          <li
            key={server.baseUrl}
            className="settings-server"
            aria-label={`${name} at ${server.baseUrl}`}
          >
            <div>
              <strong>{name}</strong> <code>{server.baseUrl}</code>
              <p className="muted">{modelsSummary(server.models)}</p>
            </div>
            {existing === undefined ? (
              <button
                type="button"
                className="primary"
                disabled={isBusy}
                aria-label={`${actionLabel}: ${name} at ${server.baseUrl}`}
                onClick={() => onPick(server)}
              >
                {actionLabel}
              </button>
            ) : (
              <span className="settings-badge">added as {existing}</span>
            )}
          </li>
        )
      })}
    </ul>
  )
}
