import { ShieldAlert } from 'lucide-react'
import { useState } from 'react'
import type { McpProjectFileView, McpTrustServerView } from '../../../../../protocol/mcp'
import type { McpAction } from './use-mcp'

export interface McpTrustPromptProps {
  readonly file: McpProjectFileView
  readonly run: (action: McpAction) => Promise<string | undefined>
}

/**
 * The project's `.mcp.json`: untrusted, what each of its servers would run, with "Trust and
 * start" and "Not now" (which only folds the question until the page is opened again);
 * trusted, a quiet line and a way to stop trusting it; invalid, why it cannot be used. The host
 * sends every string already escaped (`protocol/visible-text.ts`) and every secret masked
 * (`main/core/host/mcp-trust-view.ts`), so what is shown here is what the CLI prints.
 */
export function McpTrustPrompt({ file, run }: McpTrustPromptProps) {
  const [isDismissed, setDismissed] = useState(false)
  const [isBusy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const trust = async (wanted: boolean) => {
    setBusy(true)
    // Trust is given to what is shown: the host refuses if the servers changed since.
    let failed = await run({
      method: 'mcp/trust',
      trust: wanted,
      ...(wanted && file.fingerprint !== undefined ? { fingerprint: file.fingerprint } : {}),
    })
    // "Trust and start": each server starts now, rather than when a session first needs it.
    for (const server of wanted && failed === undefined ? file.servers : [])
      failed ??= await run({ method: 'mcp/restart', name: server.name })
    setError(failed)
    setBusy(false)
  }
  const errorLine =
    error === undefined ? null : (
      <p className="settings-error-text" role="alert">
        {error}
      </p>
    )

  if (file.state === 'invalid') {
    return (
      <p className="mcp-trust mcp-trust-invalid" role="status">
        <code>{file.path}</code> cannot be used: {file.reason ?? 'it is not valid'}.
      </p>
    )
  }
  if (file.state === 'trusted') {
    return (
      <div className="mcp-trust-line">
        <p className="settings-hint">
          You trust <code>{file.path}</code>: its servers start when a session needs them.
        </p>
        <button type="button" disabled={isBusy} onClick={() => void trust(false)}>
          Stop trusting
        </button>
        {errorLine}
      </div>
    )
  }
  if (isDismissed) {
    return (
      <div className="mcp-trust-line">
        <p className="settings-hint">
          The project's <code>.mcp.json</code> is not trusted: its servers do not start.
        </p>
        <button type="button" onClick={() => setDismissed(false)}>
          Review
        </button>
      </div>
    )
  }
  return (
    <section className="mcp-trust" aria-labelledby="mcp-trust-title">
      <h3 id="mcp-trust-title">
        <ShieldAlert aria-hidden="true" size={16} /> This project asks to run MCP servers
      </h3>
      <p>
        <code>{file.path}</code> names programs that would run on this computer with your
        permissions. Trust it only if you know what they are:
      </p>
      {file.changed === undefined ? null : (
        <p className="settings-error-text" role="alert">
          Changed since you trusted it: {file.changed.join(', ')}
        </p>
      )}
      {file.hiddenCharacters === true ? (
        <p className="settings-error-text" role="alert">
          The file holds control or invisible characters; they are shown as \x.. escapes.
        </p>
      ) : null}
      <ul aria-label="What the project's servers would run">
        {file.servers.map((server) => (
          <li key={server.name}>
            <strong>{server.name}</strong> runs <code>{server.target}</code>
            <McpTrustFields server={server} />
          </li>
        ))}
      </ul>
      <p className="settings-hint">
        Trust covers the file and the files listed: if any of them changes, Bridle asks again.
      </p>
      <div className="settings-actions">
        <button
          type="button"
          className="primary"
          disabled={isBusy}
          onClick={() => void trust(true)}
        >
          Trust and start
        </button>
        <button type="button" disabled={isBusy} onClick={() => setDismissed(true)}>
          Not now
        </button>
      </div>
      {errorLine}
    </section>
  )
}

/** Every field of one server and the files trust covers, as the host described them. */
function McpTrustFields({ server }: { readonly server: McpTrustServerView }) {
  return (
    <dl className="mcp-trust-fields">
      {server.fields.map((field, index) => (
        <div key={`${field.label}-${index}`}>
          <dt>{field.label}</dt>
          <dd>
            <code>{field.value}</code>
          </dd>
        </div>
      ))}
      {server.files.map((file) => (
        <div key={file.path}>
          <dt>covers</dt>
          <dd>
            <code>{file.path}</code>{' '}
            {file.sha256 === null
              ? '(missing now: one that appears asks again)'
              : `sha256 ${file.sha256.slice(0, 12)}`}
          </dd>
        </div>
      ))}
    </dl>
  )
}
