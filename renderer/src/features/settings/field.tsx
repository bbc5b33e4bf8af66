import { useId } from 'react'
import type { ReactNode } from 'react'
import type { FieldError } from '../../../../protocol/contract'

/** What an input needs to be labelled and tied to its error and hint. */
export interface InputWiring {
  readonly id: string
  readonly 'aria-invalid': boolean
  readonly 'aria-describedby': string | undefined
}

export interface FieldProps {
  readonly label: string
  /** Shown right under the input, in the danger colour, and announced. */
  readonly error?: string | undefined
  readonly hint?: ReactNode
  /** A checkbox: the input sits before its label on one line. */
  readonly isInline?: boolean
  readonly children: (wiring: InputWiring) => ReactNode
}

/**
 * A label, its input and the input's error in one place, so an error from the server lands next
 * to what it is about and a screen reader reads it with the input (`aria-describedby`).
 */
export function Field({ label, error, hint, isInline = false, children }: FieldProps) {
  const id = useId()
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const describedBy =
    [error === undefined ? '' : errorId, hint === undefined ? '' : hintId]
      .filter((part) => part !== '')
      .join(' ') || undefined
  const input = children({
    id,
    'aria-invalid': error !== undefined,
    'aria-describedby': describedBy,
  })
  return (
    <div className={error === undefined ? 'settings-field' : 'settings-field has-error'}>
      {isInline ? (
        <div className="settings-inline">
          {input}
          <label htmlFor={id}>{label}</label>
        </div>
      ) : (
        <>
          <label htmlFor={id}>{label}</label>
          {input}
        </>
      )}
      {error === undefined ? null : (
        <p id={errorId} className="settings-field-error" role="alert">
          {error}
        </p>
      )}
      {hint === undefined ? null : (
        <p id={hintId} className="settings-hint">
          {hint}
        </p>
      )}
    </div>
  )
}

/** Errors no input stands for, or a failure of the whole request. */
export function FormErrors({
  message,
  fields = [],
}: {
  readonly message?: string | undefined
  readonly fields?: readonly FieldError[]
}) {
  if (message === undefined && fields.length === 0) return null
  return (
    <div className="settings-form-error" role="alert">
      {message === undefined ? null : <p>{message}</p>}
      {fields.length === 0 ? null : (
        <ul>
          {fields.map((field) => (
            <li key={`${field.path}:${field.message}`}>
              <code>{field.path === '' ? 'settings' : field.path}</code>: {field.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
