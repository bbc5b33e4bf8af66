import { useMemo, useState } from 'react'
import type { BridleApi, RequestView as RequestViewDto } from '../../../../protocol/contract'
import { diffRequests, previousRequestSeq } from './request-diff'
import type { CheckpointRange, DiffEntry, RemovedEntry, RequestDiff } from './request-diff'
import { useRequest } from './use-request'
import { Select } from '../../ui/select'

interface RequestInspectorProps {
  readonly api: BridleApi
  readonly sessionId: string
  /** Seqs of the session's `request/start` events, in order. */
  readonly starts: readonly number[]
  readonly checkpoints: readonly CheckpointRange[]
  readonly startSeq: number | undefined
  readonly onChangeStart: (seq: number) => void
}

/**
 * Exactly what the model was sent for one request (`session/request`), with its tokens by part,
 * and what changed since the request before it.
 */
export function RequestInspector({
  api,
  sessionId,
  starts,
  checkpoints,
  startSeq,
  onChangeStart,
}: RequestInspectorProps) {
  const seq = startSeq ?? starts.at(-1)
  const previousSeq = seq === undefined ? undefined : previousRequestSeq(starts, seq)
  const current = useRequest(api, sessionId, seq)
  const previous = useRequest(api, sessionId, previousSeq)
  const prevView = previous.status === 'ready' ? previous.view : undefined
  const diff = useMemo(
    () =>
      current.status === 'ready' && (previousSeq === undefined || prevView !== undefined)
        ? diffRequests(prevView, current.view, checkpoints)
        : undefined,
    [current, prevView, previousSeq, checkpoints],
  )

  return (
    <section className="rq" aria-label="Request">
      <div className="rq-picker">
        <Select
          caption="Request"
          label="Request"
          value={seq === undefined ? undefined : String(seq)}
          options={starts.map((s, i) => ({ value: String(s), label: `#${i + 1} (seq ${s})` }))}
          onValueChange={(value) => onChangeStart(Number(value))}
          placeholder="none yet"
        />
        {previousSeq === undefined ? (
          <span className="muted">the first request: everything is new</span>
        ) : (
          <span className="muted">compared with seq {previousSeq}</span>
        )}
      </div>
      {seq === undefined ? <p className="muted">No request in this session yet.</p> : null}
      {current.status === 'loading' ? <p aria-busy="true">Reading the request…</p> : null}
      {current.status === 'failed' ? (
        <p role="alert" className="error-row">
          {current.message}
        </p>
      ) : null}
      {current.status === 'ready' ? (
        <>
          <TokenTable view={current.view} />
          {diff ? <RequestBody view={current.view} diff={diff} /> : <p>Comparing…</p>}
        </>
      ) : null}
    </section>
  )
}

function TokenTable({ view }: { readonly view: RequestViewDto }) {
  const { tokens } = view
  const parts: [string, number | string][] = [
    ['system', tokens.system],
    ['tools', tokens.tools],
    ['history', tokens.history],
    ['checkpoint', tokens.checkpoint],
    ['tool outputs', tokens.toolOutputs],
    ['total', tokens.total],
    ['server reported', view.reportedInputTokens ?? '—'],
  ]
  return (
    <div className="rq-head">
      <div className="muted">
        {view.model} ·{' '}
        {Object.keys(view.params).length > 0 ? JSON.stringify(view.params) : 'no params'}
      </div>
      <table className="rq-tokens" aria-label="Tokens by part">
        <tbody>
          <tr>
            {parts.map(([name]) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
          <tr>
            {parts.map(([name, value]) => (
              <td key={name} data-part={name}>
                {value}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
      <div className="muted">counted with {tokens.method}</div>
    </div>
  )
}

function RequestBody({
  view,
  diff,
}: {
  readonly view: RequestViewDto
  readonly diff: RequestDiff
}) {
  const [showAll, setShowAll] = useState(false)
  const changed = diff.entries.filter((e) => e.status !== 'same')
  const shown = showAll ? diff.entries : changed
  return (
    <>
      <div className="rq-diff-summary">
        <span data-testid="request-diff-summary">{describeDiff(diff)}</span>
        <label className="rq-toggle">
          <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} />
          all {view.messages.length} messages
        </label>
      </div>
      <ol className="rq-messages" aria-label="Messages sent">
        {shown.map((entry) => (
          <MessageItem
            key={`${entry.message.role}:${entry.message.seq}:${entry.message.callId ?? ''}`}
            entry={entry}
          />
        ))}
      </ol>
      {diff.removed.length > 0 ? <RemovedList removed={diff.removed} /> : null}
      <details className="rq-tools">
        <summary>{view.tools.length} tool(s) offered</summary>
        <ul>
          {view.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code> <span className="muted">{tool.description}</span>
            </li>
          ))}
        </ul>
      </details>
    </>
  )
}

/** The diff in one line: what is new, what is shared, what is gone, and any tool or param change. */
function describeDiff(diff: RequestDiff): string {
  const changed = diff.entries.filter((e) => e.status !== 'same').length
  const parts = [
    `${changed} new or changed message(s) (+${diff.addedTokens} tokens)`,
    `${diff.sharedPrefix} shared from the start`,
    `${diff.removed.length} gone${diff.removed.length > 0 ? ` (−${diff.removedTokens} tokens)` : ''}`,
  ]
  if (diff.tools.added.length > 0) parts.push(`tools added: ${diff.tools.added.join(', ')}`)
  if (diff.tools.removed.length > 0) parts.push(`tools removed: ${diff.tools.removed.join(', ')}`)
  if (diff.changedParams.length > 0) parts.push(`params changed: ${diff.changedParams.join(', ')}`)
  return parts.join(' · ')
}

const CLIP = 2000

function MessageItem({ entry }: { readonly entry: DiffEntry }) {
  const { message, status } = entry
  const [isOpen, setOpen] = useState(false)
  const long = message.content.length > CLIP
  return (
    <li
      className={`rq-msg rq-${status}`}
      data-testid="request-message"
      data-status={status}
      data-role={message.role}
    >
      <div className="rq-msg-head">
        <span className={`rq-badge rq-badge-${status}`}>{status}</span>
        <strong>{message.role}</strong>
        {message.kind ? <span className="muted">{message.kind}</span> : null}
        <span className="muted">seq {message.seq}</span>
        {message.callId ? <span className="muted">call {message.callId}</span> : null}
        <span className="tl-spacer" />
        <span className="muted">{message.tokens} tok</span>
      </div>
      {message.content ? (
        <pre className="rq-content">
          {long && !isOpen ? `${message.content.slice(0, CLIP)}…` : message.content}
        </pre>
      ) : null}
      {long ? (
        <button type="button" className="link" onClick={() => setOpen(!isOpen)}>
          {isOpen ? 'Show less' : `Show all ${message.content.length} characters`}
        </button>
      ) : null}
      {message.toolCalls?.map((call) => (
        <div key={call.callId} className="rq-call">
          → <code>{call.name}</code> <span className="muted">{call.callId}</span>{' '}
          <code>{call.args}</code>
        </div>
      ))}
      {status === 'changed' && entry.before ? (
        <details>
          <summary>before</summary>
          <pre className="rq-content">{entry.before.content}</pre>
        </details>
      ) : null}
    </li>
  )
}

function RemovedList({ removed }: { readonly removed: readonly RemovedEntry[] }) {
  return (
    <details className="rq-removed" open>
      <summary>{removed.length} message(s) no longer sent</summary>
      <ul>
        {removed.map(({ message, replacedBy }) => (
          <li
            key={`${message.role}:${message.seq}:${message.callId ?? ''}`}
            data-testid="request-removed"
          >
            <strong>{message.role}</strong> <span className="muted">seq {message.seq}</span>{' '}
            {replacedBy === undefined ? 'removed' : `replaced by checkpoint ${replacedBy}`}
          </li>
        ))}
      </ul>
    </details>
  )
}
