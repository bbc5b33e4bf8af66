import type { ApprovalRequest, BridleApi } from '../../../../protocol/contract'
import { callKey } from '../../state/event-selectors'
import { ApprovalPrompt } from './approval-prompt'
import { compactArgs, formatDuration, STATUS_LABEL } from './format'
import type { ToolCallView, ToolStatus } from './items'
import { MarkdownText } from './markdown'
import { codeSentence } from './plain-words'
import { isBoolean, useRowState } from './row-state'
import { ToolOutput } from './tool-output'
import './run-code-body.css'

interface RunCodeBodyProps {
  readonly api: BridleApi
  readonly call: ToolCallView
  /** Approvals waiting for the program's own calls (each shown in its row). */
  readonly pendingInner: readonly ApprovalRequest[] | undefined
}

/** The program a `run_code` call ran: its `code` argument, else the model's text as sent. */
export function programOf(call: ToolCallView): string {
  const args = call.args
  if (typeof args === 'object' && args !== null && 'code' in args) {
    const { code } = args
    if (typeof code === 'string') return code
  }
  return call.argsText
}

/** The card head's summary of a program: its first line, and how many tools it called. */
export function runCodeSummary(call: ToolCallView): string {
  const first =
    programOf(call)
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  const count = call.inner?.length ?? 0
  const clipped = first.length > 80 ? `${first.slice(0, 79)}…` : first
  return count === 0 ? clipped : `${clipped} · ${count} tool call${count === 1 ? '' : 's'}`
}

/** The program as a fenced JavaScript block: fenced with more backticks than it contains. */
function fenced(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}javascript\n${code}\n${fence}`
}

/**
 * What a `run_code` call shows: the program (highlighted JavaScript), the tool calls it made as
 * rows in the order made (name, short arguments, outcome; a waiting approval is answered in its
 * row), then its result: the console output and returned value, or why it failed.
 */
export function RunCodeBody({ api, call, pendingInner }: RunCodeBodyProps) {
  const inner = call.inner ?? []
  const pendingByKey = new Map((pendingInner ?? []).map((request) => [callKey(request), request]))
  return (
    <div className="tool-body run-code-body">
      <section aria-label="Program">
        <h4 className="run-code-label">Program</h4>
        <MarkdownText text={fenced(programOf(call))} />
      </section>
      <section aria-label="Tool calls of the program">
        <h4 className="run-code-label">
          Tool calls <span className="muted">({inner.length})</span>
        </h4>
        {inner.length === 0 ? (
          <p className="muted run-code-none">
            {call.status === 'running' || call.status === 'queued'
              ? 'None yet.'
              : 'The program called no tools.'}
          </p>
        ) : (
          <ol className="run-code-calls">
            {inner.map((made) => (
              <InnerCallRow
                key={made.key}
                api={api}
                call={made}
                pending={pendingByKey.get(made.key)}
              />
            ))}
          </ol>
        )}
      </section>
      <section aria-label="Result of the program">
        <h4 className="run-code-label">Result</h4>
        {call.error !== undefined && (
          <div className="tool-error">
            {codeSentence(call.error.code) !== undefined && <p>{codeSentence(call.error.code)}</p>}
            <p>
              <code>{call.error.code}</code> {call.error.message}
            </p>
          </div>
        )}
        {call.output !== undefined && (
          <ToolOutput
            api={api}
            output={call.output}
            {...(call.outputRef === undefined ? {} : { outputRef: call.outputRef })}
          />
        )}
        {call.output === undefined && call.error === undefined && (
          <p className="muted run-code-none">
            {call.status === 'running' || call.status === 'queued' ? 'Running…' : 'No result.'}
          </p>
        )}
      </section>
    </div>
  )
}

/** An inner call's outcome in a word: `ok` where a card says `done`. */
const innerLabel = (status: ToolStatus): string => (status === 'done' ? 'ok' : STATUS_LABEL[status])

/** One call the program made: a line, its approval while one waits, its error, its output. */
function InnerCallRow({
  api,
  call,
  pending,
}: {
  readonly api: BridleApi
  readonly call: ToolCallView
  readonly pending: ApprovalRequest | undefined
}) {
  const status: ToolStatus = pending ? 'awaiting-approval' : call.status
  const [isOpen, setOpen] = useRowState(`open:${call.key}`, false, isBoolean)
  const hasOutput = call.output !== undefined
  return (
    <li
      className={`run-code-call tool-${status}`}
      data-call-id={call.callId}
      aria-label={`${call.mcp?.tool ?? call.name}: ${innerLabel(status)}`}
    >
      <div className="run-code-call-head">
        {hasOutput ? (
          <button
            type="button"
            className="icon tool-toggle"
            aria-expanded={isOpen}
            aria-label={
              isOpen ? `Hide the output of ${call.name}` : `Show the output of ${call.name}`
            }
            onClick={() => setOpen(!isOpen)}
          >
            {isOpen ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tool-toggle" aria-hidden="true" />
        )}
        <span className="tool-name">{call.mcp?.tool ?? call.name}</span>
        <code className="tool-args" title={call.argsText}>
          {call.args === undefined && call.approval !== undefined
            ? call.approval.description
            : compactArgs(call.name, call.args, call.argsText, 90)}
        </code>
        <span className="spacer" />
        {call.durationMs !== undefined && (
          <span className="tool-time">{formatDuration(call.durationMs)}</span>
        )}
        <span className={`tool-status status-${status}`}>
          {status === 'running' && <span className="running-dot" aria-hidden="true" />}
          {innerLabel(status)}
        </span>
      </div>
      {pending && <ApprovalPrompt api={api} request={pending} />}
      {call.error !== undefined && (
        <p className="run-code-call-error">
          <code>{call.error.code}</code> {call.error.message}
        </p>
      )}
      {isOpen && hasOutput && (
        <ToolOutput
          api={api}
          output={call.output ?? ''}
          {...(call.outputRef === undefined ? {} : { outputRef: call.outputRef })}
        />
      )}
    </li>
  )
}
