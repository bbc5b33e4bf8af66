import { memo, useEffect, useState } from 'react'
import type { ApprovalRequest, BridleApi } from '../../../../protocol/contract'
import { ApprovalPrompt, CodeText } from './approval-prompt'
import { decisionNote } from '../../state/approval-words'
import { compactArgs, formatDuration, sentence, STATUS_LABEL } from './format'
import { codeSentence } from './plain-words'
import { RUN_CODE } from './items'
import type { ToolCallView, ToolStatus } from './items'
import { num } from './read-json'
import { RunCodeBody, runCodeSummary } from './run-code-body'
import { hasToolDiff, ToolDiff } from './tool-diff'
import { ToolOutput } from './tool-output'
import { isBoolean, useRowState } from './row-state'

interface ToolCardProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly turn: number
  readonly call: ToolCallView
  /** The open question for this call, when this app can answer it. */
  readonly pending: ApprovalRequest | undefined
  /** Open questions for the calls this call made (code mode), answered in their rows. */
  readonly pendingInner?: readonly ApprovalRequest[] | undefined
}

/**
 * One tool call: what was asked (name and arguments in a line), where it stands (a live status
 * and the time it took or is taking), and what came of it (output, exit code, diff, error). A
 * pending approval is answered right here. Denied, interrupted and "outcome unknown" (a crash
 * while it ran: it may or may not have had its effect) each look different from a failure.
 */
export const ToolCard = memo(function ToolCard({
  api,
  sessionId,
  turn,
  call,
  pending,
  pendingInner,
}: ToolCardProps) {
  const status: ToolStatus = pending ? 'awaiting-approval' : call.status
  const isProgram = call.name === RUN_CODE
  const [isOpen, setOpen] = useRowState(
    `open:${call.key}`,
    !(QUIET_TOOLS.has(call.name) && status === 'done'),
    isBoolean,
  )
  const summary = isProgram
    ? runCodeSummary(call)
    : compactArgs(call.name, call.args, call.argsText)
  // A question asked inside a program is answered in its row: the card opens for it.
  const isShown = isOpen || (pendingInner !== undefined && pendingInner.length > 0)
  return (
    <article
      className={`tool-card tool-${status}`}
      aria-label={`Tool ${toolLabel(call)}: ${STATUS_LABEL[status]}`}
      data-call-id={call.callId}
    >
      <header className="tool-head">
        {hasBody(call) ? (
          <button
            type="button"
            className="icon tool-toggle"
            aria-expanded={isShown}
            aria-label={isShown ? 'Hide details' : 'Show details'}
            onClick={() => setOpen(!isShown)}
          >
            {isShown ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tool-toggle" aria-hidden="true" />
        )}
        <span className="tool-name" title={call.mcp ? call.name : undefined}>
          {call.mcp?.tool ?? call.name}
        </span>
        {call.mcp && (
          <span className="tool-mcp" title={`From the MCP server "${call.mcp.server}"`}>
            MCP · {call.mcp.server}
          </span>
        )}
        <code className="tool-args" title={call.argsText}>
          {summary}
        </code>
        <span className="spacer" />
        <SandboxBadge call={call} />
        <ExitCode call={call} />
        <Timing call={call} status={status} />
        <span className={`tool-status status-${status}`} role="status">
          {status === 'running' && <span className="running-dot" aria-hidden="true" />}
          {STATUS_LABEL[status]}
        </span>
      </header>
      {call.textFormat !== undefined && (
        <p className="tool-origin" title="The server sent no structured call: Bridle parsed it">
          Call read from the model's text ({call.textFormat})
        </p>
      )}
      {pending && <ApprovalPrompt api={api} request={pending} />}
      {isShown && isProgram && <RunCodeBody api={api} call={call} pendingInner={pendingInner} />}
      {isShown && !isProgram && hasBody(call) && (
        <ToolBody api={api} sessionId={sessionId} turn={turn} call={call} />
      )}
    </article>
  )
})

/** The tool as people know it: an MCP tool by its server's name for it, and the server. */
function toolLabel(call: ToolCallView): string {
  return call.mcp ? `${call.mcp.tool} from MCP server ${call.mcp.server}` : call.name
}

/** Tools whose finished cards start folded: their output is for the model, rarely for the user. */
const QUIET_TOOLS = new Set(['read', 'list', 'glob', 'grep'])

function hasBody(call: ToolCallView): boolean {
  return (
    call.name === RUN_CODE ||
    hasToolDiff(call) ||
    call.error !== undefined ||
    call.output !== undefined ||
    decisionNote(call.approval) !== undefined
  )
}

function ToolBody({ api, sessionId, turn, call }: Omit<ToolCardProps, 'pending'>) {
  const { approval, error } = call
  const note = decisionNote(approval)
  return (
    <div className="tool-body">
      {note !== undefined && (
        <p className={`tool-note${approval?.decision === 'deny' ? '' : ' muted'}`}>
          <CodeText text={note} />
        </p>
      )}
      {note !== undefined && approval?.warnings !== undefined && (
        <ul className="tool-warnings" aria-label="What the prompt warned of">
          {approval.warnings.map((warning, index) => (
            <li key={index}>
              <CodeText text={sentence(warning)} />
            </li>
          ))}
        </ul>
      )}
      <ToolDiff api={api} sessionId={sessionId} turn={turn} call={call} />
      {error && <ToolErrorText status={call.status} code={error.code} message={error.message} />}
      {call.output !== undefined && (
        <ToolOutput
          api={api}
          output={call.output}
          {...(call.outputRef === undefined ? {} : { outputRef: call.outputRef })}
        />
      )}
      {call.output === undefined && error && call.outputRef !== undefined && (
        <ToolOutput api={api} output="" outputRef={call.outputRef} />
      )}
    </div>
  )
}

function ToolErrorText({
  status,
  code,
  message,
}: {
  readonly status: ToolStatus
  readonly code: string
  readonly message: string
}) {
  const lead =
    status === 'unknown'
      ? 'Bridle stopped while this ran; whether it had its effect is unknown. Check before running it again.'
      : status === 'not-started'
        ? 'This call never started.'
        : codeSentence(code)
  return (
    <div className="tool-error">
      {lead !== undefined && <p>{lead}</p>}
      <p>{message}</p>
      <details className="error-details">
        <summary>Details</summary>
        <code>{code}</code>
      </details>
    </div>
  )
}

/** Whether a command ran in the OS sandbox; nothing for other tools and for older logs. */
function SandboxBadge({ call }: { readonly call: ToolCallView }) {
  if (call.sandboxed === undefined) return null
  return call.sandboxed ? (
    <span
      className="sandbox-badge"
      title="The command ran in the sandbox: it could write only inside the project, with no network unless allowed"
    >
      sandboxed
    </span>
  ) : (
    <span
      className="sandbox-badge sandbox-off"
      title="The command ran without a sandbox, with your account's full rights (see the Sandbox setting)"
    >
      not sandboxed
    </span>
  )
}

/** Bash's exit code (and signal, timeout): a non-zero exit is a normal result, but worth seeing. */
function ExitCode({ call }: { readonly call: ToolCallView }) {
  if (call.name !== 'bash' || call.status !== 'done') return null
  const code = num(call.metadata, 'exitCode')
  const signal = call.metadata['signal']
  const timedOut = call.metadata['timedOut'] === true
  const text = timedOut
    ? 'timed out'
    : typeof signal === 'string'
      ? `killed (${signal})`
      : code === undefined
        ? undefined
        : `exit ${code}`
  if (text === undefined) return null
  return <span className={`exit-code${code === 0 && !timedOut ? '' : ' exit-bad'}`}>{text}</span>
}

/** How long the call took, or, while it runs, how long it has been running (ticking). */
function Timing({ call, status }: { readonly call: ToolCallView; readonly status: ToolStatus }) {
  const isRunning = status === 'running' && call.calledAt !== undefined
  const now = useNow(isRunning)
  if (call.durationMs !== undefined) {
    return <span className="tool-time">{formatDuration(call.durationMs)}</span>
  }
  if (status === 'running' && call.calledAt !== undefined) {
    return <span className="tool-time">{formatDuration(Math.max(0, now - call.calledAt))}</span>
  }
  return null
}

/** The clock, re-read every half second while `isTicking`. */
function useNow(isTicking: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!isTicking) return
    const timer = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(timer)
  }, [isTicking])
  return now
}
