import { useState } from 'react'
import type { ApprovalRequest, BridleApi } from '../../../../preload/contract'

interface ApprovalPromptProps {
  readonly api: BridleApi
  readonly request: ApprovalRequest
}

type Answer = { decision: 'allow'; remember: boolean } | { decision: 'deny'; reason: string }

/**
 * The question a tool call waits on, inline in its card: allow once, always allow (only when the
 * request names a rule to remember, which is shown so the user knows what they agree to), or
 * deny with an optional reason the model will read. The prompt leaves when the log records the
 * decision (the feed drops the pending request), not when the button is clicked.
 */
export function ApprovalPrompt({ api, request }: ApprovalPromptProps) {
  const [isDenying, setDenying] = useState(false)
  const [reason, setReason] = useState('')
  const [isSending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>()

  const respond = async (answer: Answer) => {
    setSending(true)
    setError(undefined)
    try {
      const result = await api.call('approval/respond', {
        sessionId: request.sessionId,
        callId: request.callId,
        decision: answer.decision,
        ...(answer.decision === 'allow'
          ? { remember: answer.remember }
          : answer.reason.trim() === ''
            ? {}
            : { reason: answer.reason.trim() }),
      })
      if (!result.ok) setError(`The answer was not taken: ${result.error.message}`)
      else if (!result.value.accepted) setError('This request was already answered or has ended.')
    } catch (failure) {
      setError(`The answer was not taken: ${String(failure)}`)
    } finally {
      setSending(false)
    }
  }

  return (
    <div className="approval" role="group" aria-label={`Approve ${request.tool}`}>
      <p className="approval-question">
        <strong>Allow this {request.tool} call?</strong> {request.description}
      </p>
      {isDenying ? (
        <form
          className="row approval-deny"
          onSubmit={(event) => {
            event.preventDefault()
            void respond({ decision: 'deny', reason })
          }}
        >
          <input
            aria-label="Reason for denying"
            placeholder="Why not, or what to do instead (optional; the model reads it)"
            value={reason}
            maxLength={2000}
            onChange={(event) => setReason(event.target.value)}
            autoFocus
          />
          <button type="submit" className="danger" disabled={isSending}>
            Deny
          </button>
          <button type="button" onClick={() => setDenying(false)} disabled={isSending}>
            Back
          </button>
        </form>
      ) : (
        <div className="row">
          <button
            type="button"
            className="primary"
            disabled={isSending}
            onClick={() => void respond({ decision: 'allow', remember: false })}
          >
            Allow once
          </button>
          {request.approvalKey !== undefined && (
            <button
              type="button"
              disabled={isSending}
              title="Remember an allow rule for this project"
              onClick={() => void respond({ decision: 'allow', remember: true })}
            >
              Always allow <code>{request.approvalKey}</code>
            </button>
          )}
          <button type="button" disabled={isSending} onClick={() => setDenying(true)}>
            Deny…
          </button>
        </div>
      )}
      {error !== undefined && (
        <p role="alert" className="error-row">
          {error}
        </p>
      )}
    </div>
  )
}
