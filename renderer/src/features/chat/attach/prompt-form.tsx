/**
 * The arguments of a picked MCP prompt, asked for above the message box: one labelled field per
 * argument, the required ones marked as such (and announced so). Enter in a field fills the
 * prompt in, Escape cancels; neither reaches the message box (Enter would send it, Escape stop
 * the turn). Empty required fields keep it from going and say which they are.
 */
import { useId, useState } from 'react'
import type { KeyboardEvent } from 'react'
import type { McpPromptView } from '../../../../../protocol/mcp'
import { missingArguments } from './slash'

export interface PromptFormProps {
  readonly prompt: McpPromptView
  readonly isFilling: boolean
  readonly onSubmit: (values: Readonly<Record<string, string>>) => void
  readonly onCancel: () => void
}

export function PromptForm({ prompt, isFilling, onSubmit, onCancel }: PromptFormProps) {
  const id = useId()
  const [values, setValues] = useState<Record<string, string>>({})
  const [missing, setMissing] = useState<string[]>([])

  const submit = () => {
    if (isFilling) return
    const empty = missingArguments(prompt, values)
    setMissing(empty)
    if (empty.length === 0) onSubmit(values)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && !event.nativeEvent.isComposing) submit()
    else if (event.key === 'Escape') onCancel()
    else return
    event.preventDefault()
    event.stopPropagation()
  }

  return (
    <div role="group" aria-labelledby={`${id}-title`} className="prompt-form" aria-busy={isFilling}>
      <p id={`${id}-title`} className="prompt-form-title">
        Arguments for <code>{prompt.command}</code>
      </p>
      {prompt.arguments.map((argument, index) => (
        <div key={argument.name} className="prompt-form-field">
          <label htmlFor={`${id}-${index}`}>
            {argument.name}
            {argument.required && (
              <span className="prompt-form-required" aria-hidden="true">
                {' '}
                *
              </span>
            )}
          </label>
          <input
            id={`${id}-${index}`}
            type="text"
            value={values[argument.name] ?? ''}
            required={argument.required}
            aria-invalid={missing.includes(argument.name) || undefined}
            aria-describedby={argument.description === '' ? undefined : `${id}-${index}-hint`}
            // The form opens because the user picked a prompt: its first field takes the focus.
            autoFocus={index === 0}
            disabled={isFilling}
            onChange={(event) => {
              const value = event.target.value
              setValues((now) => ({ ...now, [argument.name]: value }))
            }}
            onKeyDown={onKeyDown}
          />
          {argument.description !== '' && (
            <span id={`${id}-${index}-hint`} className="prompt-form-hint">
              {argument.description}
            </span>
          )}
        </div>
      ))}
      {missing.length > 0 && (
        <p role="alert" className="attach-error">
          Fill in {missing.join(', ')}.
        </p>
      )}
      <div className="prompt-form-actions">
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={submit} disabled={isFilling}>
          {isFilling ? 'Filling in…' : 'Insert'}
        </button>
      </div>
    </div>
  )
}
