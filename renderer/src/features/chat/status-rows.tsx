import { memo } from 'react'
import type { BridleApi } from '../../../../protocol/contract'
import type { DrawerPanel } from '../feed'
import {
  errorHint,
  formatDuration,
  formatTokens,
  noticeHint,
  sentence,
  turnEndText,
} from './format'
import { CONTEXT_TRUNCATED_BY_SERVER } from './items'
import type { ChatItem } from './items'
import { codeSentence, mcpNoticeLead, recoveredText } from './plain-words'
import { requestMcpSection } from '../settings'
import { useFilesExist } from './use-files-exist'

type Item<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>

/**
 * What failed, in the core's words (they name the cause), with the code and what to do. A step
 * error the loop retries after is a quieter notice: the turn goes on.
 */
export const ErrorRow = memo(function ErrorRow({ item }: { readonly item: Item<'error'> }) {
  const hint = item.isRetry ? undefined : errorHint(item.code, item.message)
  return (
    <div
      className={item.isRetry ? 'notice-row retry-row' : 'notice-row error-notice'}
      role={item.isRetry ? 'status' : 'alert'}
    >
      <p>
        <strong>{item.isRetry ? 'Retrying' : failedWhat(item.scope, item.code)}</strong>{' '}
        {codeSentence(item.code)} {item.message}
      </p>
      <details className="error-details">
        <summary>Details</summary>
        <code className="error-code">{item.code}</code>
      </details>
      {hint !== undefined && <p className="hint">{hint}</p>}
    </div>
  )
})

/**
 * Something the user should know that is not a failure (a reply cut at the output limit): a
 * quiet line with an icon, a warning in the warning tint, an info in the info tint.
 */
export const NoticeRow = memo(function NoticeRow({
  item,
  onShowPanel,
}: {
  readonly item: Item<'notice'>
  readonly onShowPanel?: (panel: DrawerPanel) => void
}) {
  const isWarning = item.level === 'warning'
  const hint = noticeHint(item.code)
  const lead = mcpNoticeLead(item.code)
  const reviewMcp = () => {
    requestMcpSection()
    onShowPanel?.('settings')
  }
  return (
    <p
      className={`notice-row status-notice ${isWarning ? 'notice-warning' : 'notice-info'}`}
      role="status"
      data-code={item.code}
    >
      <span className="notice-icon" role="img" aria-label={isWarning ? 'Warning' : 'Note'}>
        {isWarning ? '⚠' : 'ℹ'}
      </span>
      <span>
        {lead !== undefined && <strong>{lead} </strong>}
        {sentence(item.message)}
        {hint !== undefined && <span className="notice-hint"> {hint}</span>}
        {item.code === 'MCP_PROJECT_UNTRUSTED' && onShowPanel !== undefined && (
          <button type="button" className="link notice-action" onClick={reviewMcp}>
            Review MCP servers
          </button>
        )}
      </span>
    </p>
  )
})

function failedWhat(scope: string, code: string): string {
  // Not a failed request: the answer came, from a prompt the server had cut.
  if (code === CONTEXT_TRUNCATED_BY_SERVER) return 'The model saw only part of the prompt.'
  switch (scope) {
    case 'step':
      return 'The model request failed.'
    case 'turn':
      return 'The turn failed.'
    case 'compaction':
      return 'Summarising the history failed.'
    case 'store':
      return 'Saving to the log failed.'
    default:
      return 'Something failed.'
  }
}

/**
 * The end of a turn: a quiet line with its usage and time, and, when the turn did not simply
 * complete, what happened, in a tone of its own (stopped, limit, crash, fork).
 */
export const TurnEndRow = memo(function TurnEndRow({ item }: { readonly item: Item<'turn-end'> }) {
  const { text, tone } = turnEndText(item.reason)
  const { inputTokens, outputTokens } = item.usage
  const facts = [
    inputTokens + outputTokens > 0
      ? `${formatTokens(inputTokens)} in / ${formatTokens(outputTokens)} out`
      : undefined,
    item.durationMs === undefined ? undefined : formatDuration(item.durationMs),
    tone === 'plain' && item.reason !== 'completed' ? text : undefined,
  ].filter((fact) => fact !== undefined)
  const isBanner = tone !== 'plain' && !(tone === 'error' && item.hasErrorRow)
  return (
    <div className="turn-end">
      {isBanner && (
        <p className={`notice-row tone-${tone}`} role="status">
          {tone === 'recovered' && <strong>Recovered. </strong>}
          {text}
        </p>
      )}
      <p className="turn-footer muted" aria-label={`Turn ${item.turn} usage`}>
        Turn {item.turn}
        {facts.length > 0 && ` · ${facts.join(' · ')}`}
      </p>
    </div>
  )
})

/** The log closed what a crash or fork left open: the synthetic events, listed. */
export const RecoveredRow = memo(function RecoveredRow({
  item,
}: {
  readonly item: Item<'recovered'>
}) {
  return (
    <details className="notice-row tone-recovered" role="status">
      <summary>{recoveredText(item.cause, item.repairs.length)}</summary>
      <ul>
        {item.repairs.map((repair) => (
          <li key={repair.seq}>
            <code>#{repair.seq}</code> {repair.what}
          </li>
        ))}
      </ul>
    </details>
  )
})

/** Where the history was summarised: the model no longer sees the originals (Checkpoints has them). */
export const CheckpointRow = memo(function CheckpointRow({
  item,
  onShowPanel,
}: {
  readonly item: Item<'checkpoint'>
  readonly onShowPanel: (panel: DrawerPanel) => void
}) {
  return (
    <div className={`checkpoint-row${item.isUndone ? ' checkpoint-undone' : ''}`}>
      <span className="checkpoint-line" aria-hidden="true" />
      <button type="button" className="link" onClick={() => onShowPanel('checkpoints')}>
        {item.isUndone ? 'Summary undone' : 'Earlier history summarised'}
      </button>
      <span className="muted">
        events {item.fromSeq}–{item.toSeq}, {formatTokens(item.tokensBefore)} →{' '}
        {formatTokens(item.tokensAfter)} tokens
      </span>
      <span className="checkpoint-line" aria-hidden="true" />
    </div>
  )
})

/**
 * Files the agent handed over (`present`). A file deleted since is left out, and the card goes
 * when none is left; until the project answers (or if it cannot), every path is shown.
 */
export const DeliverableCard = memo(function DeliverableCard({
  api,
  sessionId,
  item,
}: {
  readonly api: BridleApi
  readonly sessionId: string
  readonly item: Item<'deliverable'>
}) {
  const exists = useFilesExist(api, sessionId, item.paths)
  const paths = item.paths.filter((path) => exists?.get(path) !== false)
  if (paths.length === 0) return null
  return (
    <section className="deliverable" aria-label="Deliverables">
      <h3>Delivered</h3>
      {item.note !== undefined && <p>{item.note}</p>}
      <ul>
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
    </section>
  )
})
