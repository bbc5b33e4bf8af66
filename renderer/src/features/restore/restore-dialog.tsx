import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import type { RefObject } from 'react'
import type { RestoreOutcome } from '../../../../protocol/contract'
import type { ResendChoice, RestoreRequest } from '../../state/restore-request'
import { useShell, useShellContext } from '../../state/shell-context'
import { useDialogFocus } from '../../state/use-dialog-focus'
import { changesFiles, doneSentence, planLines, planSummary } from '../../state/restore-words'
import type { RestorePlan } from '../../state/restore-words'
import './restore.css'

type Phase =
  | { readonly name: 'checking' }
  | { readonly name: 'plan'; readonly plan: RestorePlan; readonly isNewDrift: boolean }
  | { readonly name: 'running'; readonly plan: RestorePlan }
  | { readonly name: 'done'; readonly outcome: RestoreOutcome }
  | { readonly name: 'failed'; readonly message: string }

/**
 * "Restore files": puts the project's files back to a point of the session, or undoes the last
 * restore. It first asks for a dry run and shows what would change, file by file; files changed
 * outside Bridle since the session last saw them are named, and going on needs a second, plainly
 * worded button (the bridge's `force`). Edit and Regenerate open it in `resend` mode, where it
 * only asks: restore then send, send without restoring, or cancel.
 */
export function RestoreDialog() {
  const request = useShell((s) => s.restore)
  const closeRestore = useShell((s) => s.closeRestore)
  const close = (choice: ResendChoice = { choice: 'cancel' }) => {
    if (request?.kind === 'resend') request.onDecide(choice)
    closeRestore()
  }
  return (
    // Not Radix-modal (its scroll lock needs an inline <style>, which the CSP refuses).
    <Dialog.Root
      open={request !== undefined}
      modal={false}
      onOpenChange={(open) => !open && close()}
    >
      <Dialog.Portal>
        <div className="overlay" aria-hidden="true" />
        {request !== undefined && (
          // Keyed: a new request (an undo from the done screen) starts over.
          <RestoreContent key={requestKey(request)} request={request} onClose={close} />
        )}
      </Dialog.Portal>
    </Dialog.Root>
  )
}

const requestKey = (request: RestoreRequest) =>
  request.kind === 'undo' ? `undo:${request.sessionId}` : `${request.kind}:${request.toSeq}`

function RestoreContent({
  request,
  onClose,
}: {
  readonly request: RestoreRequest
  readonly onClose: (choice?: ResendChoice) => void
}) {
  const { api } = useShellContext()
  const openRestore = useShell((s) => s.openRestore)
  const [phase, setPhase] = useState<Phase>({ name: 'checking' })
  const primary = useRef<HTMLButtonElement>(null)
  const focus = useDialogFocus(primary)
  const isUndo = request.kind === 'undo'

  const callRestore = (options: { dryRun?: boolean; force?: boolean }) =>
    request.kind === 'undo'
      ? api.call('workspace/undoRestore', { sessionId: request.sessionId, ...options })
      : api.call('workspace/restore', {
          sessionId: request.sessionId,
          toSeq: request.toSeq,
          ...options,
        })

  useEffect(() => {
    let isCurrent = true
    void callRestore({ dryRun: true }).then((result) => {
      if (!isCurrent) return
      if (!result.ok) setPhase({ name: 'failed', message: result.error.message })
      else if (result.value.status === 'drifted') {
        // A dry run plans even with drift; this only comes from an older host.
        setPhase({ name: 'failed', message: 'Files changed outside Bridle.' })
      } else setPhase({ name: 'plan', plan: result.value, isNewDrift: false })
    })
    return () => {
      isCurrent = false
    }
    // One dry run per request (the content is keyed by it).
  }, [])

  const run = async (plan: RestorePlan) => {
    setPhase({ name: 'running', plan })
    const result = await callRestore({ force: plan.drifted.length > 0 })
    if (!result.ok) return setPhase({ name: 'failed', message: result.error.message })
    const outcome = result.value
    if (outcome.status === 'drifted') {
      // More files changed while the dialog was open: show them and ask again.
      const drifted = [...new Set([...plan.drifted, ...outcome.drifted])]
      return setPhase({ name: 'plan', plan: { ...plan, drifted }, isNewDrift: true })
    }
    setPhase({ name: 'done', outcome })
  }

  const title = isUndo ? 'Undo restore' : 'Restore files'
  return (
    <Dialog.Content
      {...focus}
      // Only a choice, Escape or a click outside closes it: focus taken by a panel that mounts
      // meanwhile (the inspector turning into a drawer as the window narrows) does not.
      onFocusOutside={(event) => event.preventDefault()}
      aria-modal="true"
      className="dialog restore-dialog"
      aria-describedby={undefined}
    >
      <div className="dialog-head">
        <Dialog.Title>{title}</Dialog.Title>
        <button type="button" className="ghost" onClick={() => onClose()}>
          <X size={16} aria-hidden="true" />
          Close
        </button>
      </div>
      <p className="restore-intro">
        {isUndo
          ? "Puts the project's files back to how they were before the last restore."
          : `Puts the project's files back to how they were ${request.where}.`}{' '}
        <span className="muted">
          Only files this conversation's turns changed are touched; .git never is.
          {request.kind === 'resend' && ' Your message is sent in a new branch either way.'}
        </span>
      </p>
      {phase.name === 'checking' && (
        <p className="muted" role="status">
          Checking the files…
        </p>
      )}
      {phase.name === 'failed' && (
        <>
          <p role="alert" className="error-row">
            Could not {isUndo ? 'undo the restore' : 'restore the files'}: {phase.message}
          </p>
          <div className="restore-actions">
            <button type="button" ref={primary} onClick={() => onClose()}>
              Close
            </button>
          </div>
        </>
      )}
      {(phase.name === 'plan' || phase.name === 'running') && (
        <PlanView
          plan={phase.plan}
          isNewDrift={phase.name === 'plan' && phase.isNewDrift}
          isUndo={isUndo}
        />
      )}
      {(phase.name === 'plan' || phase.name === 'running') &&
        (request.kind === 'resend' ? (
          <ResendActions
            plan={phase.plan}
            primary={primary}
            onChoose={(choice) => onClose(choice)}
          />
        ) : (
          <ConfirmActions
            plan={phase.plan}
            isUndo={isUndo}
            isRunning={phase.name === 'running'}
            primary={primary}
            onConfirm={() => void run(phase.plan)}
            onCancel={() => onClose()}
          />
        ))}
      {phase.name === 'done' && (
        <>
          <p role="status" className="restore-done">
            {doneSentence(isUndo ? 'undo' : 'restore', phase.outcome)}
          </p>
          <div className="restore-actions">
            {!isUndo && (
              <button
                type="button"
                className="ghost"
                onClick={() => openRestore({ kind: 'undo', sessionId: request.sessionId })}
              >
                Undo restore
              </button>
            )}
            <button type="button" ref={primary} onClick={() => onClose()}>
              Done
            </button>
          </div>
        </>
      )}
    </Dialog.Content>
  )
}

/** The files the restore changes, those it leaves alone (with why), and the drift warning. */
function PlanView({
  plan,
  isNewDrift,
  isUndo,
}: {
  readonly plan: RestorePlan
  readonly isNewDrift: boolean
  readonly isUndo: boolean
}) {
  const lines = planLines(plan)
  return (
    <>
      {plan.drifted.length > 0 && (
        <div role="alert" className="restore-drift">
          <strong>
            {isNewDrift
              ? 'More files changed outside Bridle while this was open.'
              : `${plan.drifted.length === 1 ? 'A file has' : `${plan.drifted.length} files have`} changed outside Bridle since this session last saw ${plan.drifted.length === 1 ? 'it' : 'them'}.`}
          </strong>{' '}
          {isUndo
            ? 'Undoing overwrites those changes.'
            : 'Restoring overwrites those changes; "Undo restore" can bring them back.'}
          <ul aria-label="Changed outside Bridle">
            {plan.drifted.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {changesFiles(plan) ? (
        <p>{capitalize(planSummary(plan))}:</p>
      ) : (
        <p>The files already match this point: there is nothing to change.</p>
      )}
      {lines.length > 0 && (
        <ul className="restore-files" aria-label="Files">
          {lines.map((line) => (
            <li key={line.path} className={`restore-file verb-${line.verb.replace(' ', '-')}`}>
              <span className="restore-verb">{line.verb}</span>
              <code>{line.path}</code>
              {line.reason !== undefined && <span className="muted"> {line.reason}</span>}
              {line.isDrifted && <span className="restore-drift-mark">changed outside Bridle</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  )
}

function ConfirmActions({
  plan,
  isUndo,
  isRunning,
  primary,
  onConfirm,
  onCancel,
}: {
  readonly plan: RestorePlan
  readonly isUndo: boolean
  readonly isRunning: boolean
  readonly primary: RefObject<HTMLButtonElement | null>
  readonly onConfirm: () => void
  readonly onCancel: () => void
}) {
  const hasDrift = plan.drifted.length > 0
  const label = isRunning
    ? isUndo
      ? 'Undoing…'
      : 'Restoring…'
    : isUndo
      ? hasDrift
        ? 'Undo anyway'
        : 'Undo restore'
      : hasDrift
        ? 'Restore anyway'
        : 'Restore files'
  return (
    <div className="restore-actions">
      <button type="button" className="ghost" onClick={onCancel} disabled={isRunning}>
        Cancel
      </button>
      <button
        type="button"
        ref={primary}
        className={hasDrift ? 'danger' : undefined}
        disabled={isRunning || !changesFiles(plan)}
        onClick={onConfirm}
      >
        {label}
      </button>
    </div>
  )
}

function ResendActions({
  plan,
  primary,
  onChoose,
}: {
  readonly plan: RestorePlan
  readonly primary: RefObject<HTMLButtonElement | null>
  readonly onChoose: (choice: ResendChoice) => void
}) {
  const hasDrift = plan.drifted.length > 0
  return (
    <div className="restore-actions">
      <button type="button" className="ghost" onClick={() => onChoose({ choice: 'cancel' })}>
        Cancel
      </button>
      <button type="button" onClick={() => onChoose({ choice: 'keep' })}>
        Send without restoring
      </button>
      <button
        type="button"
        ref={primary}
        className={hasDrift ? 'danger' : undefined}
        disabled={!changesFiles(plan)}
        onClick={() => onChoose({ choice: 'restore', force: hasDrift })}
      >
        {hasDrift ? 'Restore anyway and send' : 'Restore files and send'}
      </button>
    </div>
  )
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
