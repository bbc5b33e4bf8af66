import { useEffect, useState } from 'react'
import type { ProbeReport } from '../../../../protocol/probe-report'
import { serverName } from '../../../../protocol/probe-words'
import { capabilityRows, hasWarnings, sinceText, tookText } from './capability-words'
import './capability-card.css'

export interface CapabilityCardProps {
  readonly report: ProbeReport
  /** The endpoint's id in config.json: the hint to raise a window names it. */
  readonly endpointId: string
}

/**
 * What a capability probe found, in the words the CLI prints (`probeRows`): the model and its
 * server, when it was tested and how long it took, then one row per finding. A prompt the server
 * cut without a word, or tools it refused, are warnings: an icon and the word "Warning", not only
 * a colour. Used in the settings' models table and in the chat's model panel.
 */
export function CapabilityCard({ report, endpointId }: CapabilityCardProps) {
  const now = useClock()
  const rows = capabilityRows(report, endpointId)
  const at = new Date(report.probedAt)
  return (
    <section
      role="region"
      className={`capability-card${hasWarnings(report) ? ' has-warning' : ''}`}
      aria-label={`Capabilities of ${report.model}`}
    >
      <header className="capability-head">
        <div className="capability-title">
          <h4>
            <span className="capability-model">{report.model}</span>{' '}
            <span className="capability-server">
              {serverName(report.kind, report.serverVersion)}
            </span>
          </h4>
          <p className="capability-when" title={at.toLocaleString()}>
            Tested {sinceText(report.probedAt, now)} · took {tookText(report.durationMs)}
          </p>
        </div>
      </header>
      <dl className="capability-rows">
        {rows.map((row, index) => (
          <div
            key={`${row.label}-${index}`}
            className={row.warning === undefined ? 'capability-row' : 'capability-row is-warning'}
          >
            <dt>
              {row.warning !== undefined && (
                <span className="capability-icon" aria-hidden="true">
                  ⚠
                </span>
              )}
              {row.label}
            </dt>
            <dd>
              {row.warning !== undefined && (
                <strong className="capability-warning">Warning: {row.warning}. </strong>
              )}
              {row.text}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}

/** How often "tested 5 min ago" is re-read: its finest unit is the minute. */
const CLOCK_TICK_MS = 30_000

/** The clock, re-read every half minute. */
function useClock(): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS)
    return () => clearInterval(timer)
  }, [])
  return now
}
