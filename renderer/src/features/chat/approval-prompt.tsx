import { useId, useState } from 'react'
import type { ApprovalRequest, BridleApi } from '../../../../protocol/contract'
import { codeSpans, grantChoices, respondParams } from '../../state/approval-words'
import type { ApprovalAnswer, GrantChoice } from '../../state/approval-words'
import { sentence } from './format'

interface ApprovalPromptProps {
  readonly api: BridleApi
  readonly request: ApprovalRequest
}

/**
 * The question a tool call waits on, inline in its card: why it needs care (its warnings, first
 * and in the warning colour), allow once, always allow (only when the request offers grants:
 * the suggested one is picked, the others, such as the exact command, one click away, each shown
 * exactly as the rule will keep it), or deny with an optional reason the model will read. The
 * prompt leaves when the log records the decision (the feed drops the pending request), not when
 * the button is clicked.
 */
export function ApprovalPrompt({ api, request }: ApprovalPromptProps) {
  const [isDenying, setDenying] = useState(false)
  const [reason, setReason] = useState('')
  const [isSending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const choices = grantChoices(request)
  const [picked, setPicked] = useState(0)
  const chosen = choices[picked] ?? choices[0]
  const warnings = request.warnings ?? []

  const respond = async (answer: ApprovalAnswer) => {
    setSending(true)
    setError(undefined)
    try {
      const result = await api.call('approval/respond', respondParams(request, answer))
      if (!result.ok) setError(`The answer was not taken: ${result.error.message}`)
      else if (!result.value.accepted) setError('This request was already answered or has ended.')
    } catch (failure) {
      setError(`The answer was not taken: ${String(failure)}`)
    } finally {
      setSending(false)
    }
  }

  return (
    <div
      className="approval"
      role="group"
      aria-label={`Approve ${request.tool}${request.subagent ? ` for the subagent “${request.subagent.description}”` : ''}`}
    >
      {request.subagent && (
        <p className="approval-subagent muted">
          Asked by the subagent “{request.subagent.description}”
        </p>
      )}
      <p className="approval-question">
        <strong>Allow this {request.tool} call?</strong> {request.description}
      </p>
      {warnings.length > 0 && <Warnings warnings={warnings} />}
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
        <>
          {chosen !== undefined && needsChooser(choices) && (
            <GrantChooser choices={choices} picked={picked} onPick={setPicked} />
          )}
          <div className="row">
            <button
              type="button"
              className="primary"
              disabled={isSending}
              onClick={() => void respond({ decision: 'allow' })}
            >
              Allow once
            </button>
            {chosen !== undefined && (
              <button
                type="button"
                disabled={isSending}
                title="Remember an allow rule for this project"
                onClick={() => void respond({ decision: 'allow', grant: chosen.option })}
              >
                Always allow{' '}
                {chosen.lines.length === 1 ? <code>{chosen.lines[0]}</code> : 'these commands'}
              </button>
            )}
            <button type="button" disabled={isSending} onClick={() => setDenying(true)}>
              Deny…
            </button>
          </div>
        </>
      )}
      {error !== undefined && (
        <p role="alert" className="error-row">
          {error}
        </p>
      )}
    </div>
  )
}

/** The one grant fits in the button (a single pattern): no chooser then. */
const needsChooser = (choices: readonly GrantChoice[]): boolean =>
  choices.length > 1 || choices.some((choice) => choice.lines.length > 1)

/** Text with the commands and patterns it quotes in backticks shown as code. */
export function CodeText({ text }: { readonly text: string }) {
  return codeSpans(text).map((part, at) =>
    part.isCode ? <code key={at}>{part.text}</code> : part.text,
  )
}

/** Why this call needs care: a list in the warning style, commands in code. */
function Warnings({ warnings }: { readonly warnings: readonly string[] }) {
  const id = useId()
  return (
    <div className="approval-warnings" role="note" aria-labelledby={id}>
      <p id={id} className="approval-warnings-title">
        <span className="notice-icon" aria-hidden="true">
          ⚠
        </span>{' '}
        Look closely before you allow this:
      </p>
      <ul>
        {warnings.map((warning, index) => (
          <li key={index}>
            <CodeText text={sentence(warning)} />
          </li>
        ))}
      </ul>
    </div>
  )
}

/**
 * What "always allow" keeps, when there is a choice (or a grant of several commands): each
 * option's patterns exactly as the rule will hold them, one per line, the suggested one picked.
 */
function GrantChooser({
  choices,
  picked,
  onPick,
}: {
  readonly choices: readonly GrantChoice[]
  readonly picked: number
  readonly onPick: (index: number) => void
}) {
  const name = useId()
  const isChoice = choices.length > 1
  return (
    <fieldset className="approval-grants">
      <legend>
        {isChoice
          ? '“Always allow” remembers, for this project:'
          : '“Always allow” remembers these commands, for this project:'}
      </legend>
      {choices.map((choice, index) => {
        const patterns = (
          <ul className="grant-patterns" aria-label="Patterns kept">
            {choice.lines.map((line, at) => (
              <li key={at}>
                <code>{line}</code>
              </li>
            ))}
          </ul>
        )
        return isChoice ? (
          <label key={choice.option} className="approval-grant">
            <input
              type="radio"
              name={name}
              checked={index === picked}
              onChange={() => onPick(index)}
            />
            {patterns}
            {choice.label !== '' && <span className="muted grant-label">{choice.label}</span>}
          </label>
        ) : (
          <div key={choice.option} className="approval-grant">
            {patterns}
          </div>
        )
      })}
    </fieldset>
  )
}
