import { RotateCw } from 'lucide-react'
import { useId, useState } from 'react'
import type { McpServerView } from '../../../../../protocol/mcp'
import { visibleText } from '../../../../../protocol/visible-text'
import type { McpAction } from './use-mcp'
import { MCP_SCOPE_TEXT, MCP_STATE_LABEL, mcpStateText } from './words'

export interface McpServerCardProps {
  readonly server: McpServerView
  readonly run: (action: McpAction) => Promise<string | undefined>
}

/**
 * One MCP server: its name and state (with why, in words), where it is configured, what it runs,
 * its tools, an on/off switch (the user's servers only: a project's are the project file's to
 * say), Restart, and the end of its stderr, folded.
 */
export function McpServerCard({ server, run }: McpServerCardProps) {
  const [isBusy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const isOn = server.state !== 'disabled'
  const act = async (action: McpAction) => {
    setBusy(true)
    setError(await run(action))
    setBusy(false)
  }
  // Not from the name: a name may hold spaces, and a user and a project server may share one.
  const headingId = useId()
  return (
    <li className={`settings-endpoint mcp-server mcp-${server.state}`} aria-labelledby={headingId}>
      <div className="settings-endpoint-head">
        <strong id={headingId}>{visibleText(server.name)}</strong>
        <span
          className={`settings-badge mcp-state mcp-state-${server.state}`}
          data-testid={`mcp-state-${server.name}`}
        >
          {MCP_STATE_LABEL[server.state]}
        </span>
        <span className="settings-badge" title="Where this server is configured">
          {MCP_SCOPE_TEXT[server.scope]}
        </span>
        <span className="spacer" />
        {server.scope === 'user' ? (
          <label className="mcp-switch">
            <input
              type="checkbox"
              role="switch"
              checked={isOn}
              disabled={isBusy}
              aria-label={`Use ${server.name}`}
              onChange={(e) =>
                void act({ method: 'mcp/setEnabled', name: server.name, enabled: e.target.checked })
              }
            />
            {isOn ? 'On' : 'Off'}
          </label>
        ) : null}
        <button
          type="button"
          disabled={isBusy || !isOn || server.state === 'untrusted'}
          aria-label={`Restart ${server.name}`}
          onClick={() => void act({ method: 'mcp/restart', name: server.name })}
        >
          <RotateCw aria-hidden="true" size={14} />
          Restart
        </button>
      </div>
      <p className={server.state === 'failed' ? 'mcp-reason is-failed' : 'mcp-reason muted'}>
        {mcpStateText(server)}
      </p>
      <p className="settings-hint">
        Runs <code className="mcp-target">{visibleText(server.target)}</code> ({server.transport})
      </p>
      {server.tools.length > 0 ? (
        <ul className="mcp-tools" aria-label={`Tools of ${server.name}`}>
          {server.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code>
              {tool.readOnly ? (
                <span className="settings-badge" title="The server says this tool changes nothing">
                  read-only
                </span>
              ) : null}
              {tool.description === '' ? null : (
                <span className="muted mcp-tool-text">{tool.description}</span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {server.stderr === '' ? null : (
        <details className="mcp-stderr">
          <summary>What it wrote to stderr</summary>
          <pre>{server.stderr}</pre>
        </details>
      )}
      {error === undefined ? null : (
        <p className="settings-error-text" role="alert">
          {error}
        </p>
      )}
    </li>
  )
}
