import { formatTokens } from './format'

interface ContextMeterProps {
  /** The last request's prompt estimate, in tokens. */
  readonly tokens: number | undefined
  readonly window: number | undefined
}

/**
 * How full the model's window was at the last request: the estimate the core logged with it
 * over the model's context window. Amber from 70 % (compaction usually starts near there), red
 * from 90 %. Without a known window it shows the count alone.
 */
export function ContextMeter({ tokens, window }: ContextMeterProps) {
  if (tokens === undefined) return null
  if (window === undefined) {
    return (
      <span className="context-meter" title="Tokens in the last request (window unknown)">
        {formatTokens(tokens)} tokens in context
      </span>
    )
  }
  const share = Math.min(1, tokens / window)
  const level = share >= 0.9 ? 'high' : share >= 0.7 ? 'mid' : 'low'
  const percent = Math.round(share * 100)
  return (
    <span className="context-meter" title="Tokens in the last request / the model's window">
      <meter
        className={`meter-${level}`}
        min={0}
        max={window}
        low={window * 0.7}
        high={window * 0.9}
        optimum={0}
        value={Math.min(tokens, window)}
        aria-label="Context used"
      />
      <span>
        {formatTokens(tokens)} / {formatTokens(window)} ({percent}%)
      </span>
    </span>
  )
}
