import { Check, Copy, Pencil, Play, RefreshCw } from 'lucide-react'
import { useState } from 'react'
import type { ResendChoice } from '../../state/restore-request'
import { changesFiles, eventWhere } from '../../state/restore-words'
import { IconButton } from '../../ui/icon-button'
import { CONTINUE_TEXT, forkPointOfUser, promptOfAnswer } from './fork-point'
import type { MessageActions } from './messages'

/** Copies the text; the icon shows a check for a moment once it is on the clipboard. */
export function CopyAction({ text, what }: { readonly text: string; readonly what: string }) {
  const [copied, setCopied] = useState(false)
  const copy = () => {
    void navigator.clipboard.writeText(text).then(() => {
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    })
  }
  return (
    <IconButton
      className="icon msg-action"
      label={copied ? 'Copy (copied)' : `Copy ${what}`}
      hint={copied ? 'Copied' : `Copy ${what} as text`}
      icon={copied ? <Check size={15} aria-hidden /> : <Copy size={15} aria-hidden />}
      onClick={copy}
    />
  )
}

/** What Edit or Regenerate came to: sent, cancelled by the user, or failed (the sentence). */
export type ResendOutcome =
  | { readonly status: 'sent' }
  | { readonly status: 'cancelled' }
  | { readonly status: 'failed'; readonly message: string }

const failed = (message: string): ResendOutcome => ({ status: 'failed', message })

/**
 * How far before a message the feed must reach for its fork point: the message's turn start and
 * the `inbox/queued` it came from lie a few events before it, or a turn's length when it was
 * queued while another turn ran; two pages' worth covers all but the longest turns.
 */
const FORK_CONTEXT_SEQS = 2000

/**
 * Forks just before the user message at `userSeq` and sends `text` there, then opens the fork:
 * Edit (new text) and Regenerate (the same text) both work this way, so the old answer stays in
 * the parent and the new one is its sibling in the tree. When the project's files have changed
 * since that point, the user is first offered to put them back: the restore is then done in the
 * fork, before the message, so the new branch starts from the files it had.
 */
export async function resendFrom(
  actions: MessageActions,
  userSeq: number,
  newText?: string,
): Promise<ResendOutcome> {
  // The feed is a window of the history: the message's queued event may lie below its start.
  await actions.reachBack(Math.max(0, userSeq - FORK_CONTEXT_SEQS))
  const point = forkPointOfUser(actions.events(), userSeq)
  if (point === undefined) return failed('Could not find where this message starts in the log.')
  const text = newText ?? point.text
  const toSeq = point.atSeq - 1
  const choice = await offerRestore(actions, toSeq)
  if (choice.choice === 'cancel') return { status: 'cancelled' }
  const forked = await actions.api.call('session/fork', {
    sessionId: actions.sessionId,
    atSeq: point.atSeq,
  })
  if (!forked.ok) return failed(`Could not fork: ${forked.error.message}`)
  const sessionId = forked.value.id
  actions.onOpenSession(sessionId)
  if (choice.choice === 'restore') {
    const restored = await actions.api.call('workspace/restore', {
      sessionId,
      toSeq,
      force: choice.force,
    })
    if (!restored.ok) {
      return failed(
        `The fork was made but its files were not restored (${restored.error.message}); the message was not sent.`,
      )
    }
    if (restored.value.status === 'drifted') {
      return failed(
        `The fork was made, but files changed outside Bridle meanwhile (${restored.value.drifted.join(', ')}); nothing was restored and the message was not sent.`,
      )
    }
  }
  const sent = await actions.api.call('turn/send', {
    sessionId,
    requestId: crypto.randomUUID(),
    text,
  })
  if (!sent.ok)
    return failed(`The fork was made but the message was not sent: ${sent.error.message}`)
  return { status: 'sent' }
}

/**
 * Asks whether to put the files back to `toSeq` first, only when that would change a file; a
 * dry run that fails (an older log, a turn running) asks nothing and keeps the files.
 */
async function offerRestore(actions: MessageActions, toSeq: number): Promise<ResendChoice> {
  if (toSeq < 0) return { choice: 'keep' }
  const plan = await actions.api.call('workspace/restore', {
    sessionId: actions.sessionId,
    toSeq,
    dryRun: true,
  })
  if (!plan.ok || plan.value.status !== 'planned' || !changesFiles(plan.value)) {
    return { choice: 'keep' }
  }
  const event = actions.events().find((candidate) => candidate.seq === toSeq)
  return new Promise((resolve) => {
    actions.openRestore({
      kind: 'resend',
      sessionId: actions.sessionId,
      toSeq,
      where:
        event === undefined ? `before this message` : `before this message, ${eventWhere(event)}`,
      onDecide: resolve,
    })
  })
}

/** Continue: an ordinary message in the same session, so the log shows what was asked. */
export async function continueAnswer(actions: MessageActions): Promise<string | undefined> {
  const sent = await actions.api.call('turn/send', {
    sessionId: actions.sessionId,
    requestId: crypto.randomUUID(),
    text: CONTINUE_TEXT,
  })
  return sent.ok ? undefined : `Could not continue: ${sent.error.message}`
}

/** The user message an answer replies to, for Regenerate. */
export async function regenerateAnswer(
  actions: MessageActions,
  answerSeq: number,
): Promise<ResendOutcome> {
  await actions.reachBack(Math.max(0, answerSeq - FORK_CONTEXT_SEQS))
  const userSeq = promptOfAnswer(actions.events(), answerSeq)
  if (userSeq === undefined) return failed('There is no message before this answer.')
  return resendFrom(actions, userSeq)
}

export const EditIcon = () => <Pencil size={15} aria-hidden />
export const RegenerateIcon = () => <RefreshCw size={15} aria-hidden />
export const ContinueIcon = () => <Play size={15} aria-hidden />
