import type { ResultOf } from '../../../../protocol/contract'
import { modelsSummary } from './words'

export type EndpointTestResult = ResultOf<'endpoint/test'>

/**
 * What `endpoint/test` found, in the server's own words: on failure its message says what failed
 * and what to do (start the server, fix the address, set a key), so it is shown as it is.
 */
export function TestResultView({ result }: { readonly result: EndpointTestResult }) {
  return (
    <div
      className={result.ok ? 'settings-test is-ok' : 'settings-test is-failed'}
      role="status"
      data-testid="endpoint-test-result"
    >
      <p>
        <strong>{result.ok ? 'Works' : 'Not working'}</strong>
        {result.ok ? <span className="muted"> · {result.latencyMs} ms</span> : null}
      </p>
      <p>{result.message}</p>
      {result.ok && result.models.length > 0 ? (
        <p className="muted">{modelsSummary(result.models, 5)}</p>
      ) : null}
    </div>
  )
}
