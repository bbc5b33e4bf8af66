import { Bot, ExternalLink } from 'lucide-react'
import { memo } from 'react'
import type { ApprovalRequest, BridleApi } from '../../../../protocol/contract'
import { useShell } from '../../state/shell-context'
import { ApprovalPrompt } from './approval-prompt'
import { formatDuration } from './format'
import type { ToolCallView, ToolStatus } from './items'
import { MarkdownText } from './markdown'
import { isBoolean, useRowState } from './row-state'
import { childProgress, SUBAGENT_STATE_LABEL, subagentView } from './subagent'
import { ToolOutput } from './tool-output'
import './subagent-card.css'

interface SubagentCardProps {
  readonly api: BridleApi
  readonly call: ToolCallView
  /** The open question for this call, when this app can answer it. */
  readonly pending: ApprovalRequest | undefined
  readonly onOpenSession: (sessionId: string) => void
}

/**
 * A `task` call as what it is: a subagent at work. Its description, the prompt it was given
 * (folded), where it stands (the call's status, and the child's message count from its summary
 * while it runs), its answer or what failed, and "Open subagent", which opens the child session,
 * running or not, once the log names it.
 */
export const SubagentCard = memo(function SubagentCard({
  api,
  call,
  pending,
  onOpenSession,
}: SubagentCardProps) {
  const status: ToolStatus = pending ? 'awaiting-approval' : call.status
  const view = subagentView(call, status)
  const childId = view.childId
  const child = useShell((s) =>
    childId === undefined ? undefined : s.sessions.find((session) => session.id === childId),
  )
  const progress = childProgress(child)
  const [isPromptOpen, setPromptOpen] = useRowState(`prompt:${call.key}`, false, isBoolean)
  const [isAnswerOpen, setAnswerOpen] = useRowState(`answer:${call.key}`, true, isBoolean)
  const label = SUBAGENT_STATE_LABEL[view.state]
  return (
    <article
      className={`tool-card subagent-card tool-${status}`}
      aria-label={`Subagent ${view.description}: ${label}`}
      data-call-id={call.callId}
      data-subagent-id={childId}
    >
      <header className="tool-head subagent-head">
        <Bot size={15} aria-hidden="true" className="subagent-icon" />
        <span className="subagent-kind">subagent</span>
        <span className="subagent-description" title={view.description}>
          {view.description}
        </span>
        <span className="spacer" />
        {progress !== undefined && <span className="subagent-progress">{progress}</span>}
        {call.durationMs !== undefined && (
          <span className="tool-time">{formatDuration(call.durationMs)}</span>
        )}
        <span className={`tool-status status-${status}`} role="status">
          {view.state === 'running' && <span className="running-dot" aria-hidden="true" />}
          {label}
        </span>
      </header>
      {pending && <ApprovalPrompt api={api} request={pending} />}
      <div className="subagent-body">
        <div className="subagent-actions">
          <button
            type="button"
            className="link"
            aria-expanded={isPromptOpen}
            onClick={() => setPromptOpen(!isPromptOpen)}
          >
            {isPromptOpen ? 'Hide prompt' : 'Show prompt'}
          </button>
          {call.output !== undefined && (
            <button
              type="button"
              className="link"
              aria-expanded={isAnswerOpen}
              onClick={() => setAnswerOpen(!isAnswerOpen)}
            >
              {isAnswerOpen ? 'Hide answer' : 'Show answer'}
            </button>
          )}
          <span className="spacer" />
          {childId === undefined ? (
            <span className="muted subagent-pending">
              {view.state === 'waiting' || view.state === 'running'
                ? 'Starting the subagent…'
                : 'No subagent session was started'}
            </span>
          ) : (
            <button
              type="button"
              className="subagent-open"
              onClick={() => onOpenSession(childId)}
              title="Open the subagent's own session (its whole conversation)"
            >
              <ExternalLink size={13} aria-hidden="true" />
              Open subagent
            </button>
          )}
        </div>
        {isPromptOpen && (
          <pre className="subagent-prompt" aria-label="Prompt given to the subagent">
            {view.prompt === '' ? '(no prompt)' : view.prompt}
          </pre>
        )}
        {isAnswerOpen && call.output !== undefined && (
          <div className="subagent-answer" aria-label="The subagent's answer">
            {call.outputRef === undefined ? (
              <MarkdownText text={call.output} />
            ) : (
              <ToolOutput api={api} output={call.output} outputRef={call.outputRef} />
            )}
          </div>
        )}
        {call.error && (
          <div className="tool-error">
            <p>{failureLead(view.state)}</p>
            <p className="subagent-error-text">{call.error.message}</p>
          </div>
        )}
      </div>
    </article>
  )
})

function failureLead(state: ReturnType<typeof subagentView>['state']): string {
  switch (state) {
    case 'stopped':
      return 'The subagent was stopped before it answered.'
    case 'unknown':
      return 'Bridle stopped while the subagent ran; open it to see how far it got.'
    default:
      return 'The subagent did not finish its task.'
  }
}
