import { Check, Copy, Pencil, Play, RefreshCw } from 'lucide-react'
import { useState } from 'react'
import type { EventDto } from '../../../../protocol/contract'
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

/**
 * Forks just before the user message at `userSeq` and sends `text` there, then opens the fork:
 * Edit (new text) and Regenerate (the same text) both work this way, so the old answer stays in
 * the parent and the new one is its sibling in the tree. Resolves to an error sentence or undefined.
 */
export async function resendFrom(
  actions: MessageActions,
  events: readonly EventDto[],
  userSeq: number,
  newText?: string,
): Promise<string | undefined> {
  const point = forkPointOfUser(events, userSeq)
  if (point === undefined) return 'Could not find where this message starts in the log.'
  const text = newText ?? point.text
  const forked = await actions.api.call('session/fork', {
    sessionId: actions.sessionId,
    atSeq: point.atSeq,
  })
  if (!forked.ok) return `Could not fork: ${forked.error.message}`
  const sessionId = forked.value.id
  actions.onOpenSession(sessionId)
  const sent = await actions.api.call('turn/send', {
    sessionId,
    requestId: crypto.randomUUID(),
    text,
  })
  if (!sent.ok) return `The fork was made but the message was not sent: ${sent.error.message}`
  return undefined
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
export function regenerateAnswer(
  actions: MessageActions,
  events: readonly EventDto[],
  answerSeq: number,
): Promise<string | undefined> {
  const userSeq = promptOfAnswer(events, answerSeq)
  if (userSeq === undefined) return Promise.resolve('There is no message before this answer.')
  return resendFrom(actions, events, userSeq)
}

export const EditIcon = () => <Pencil size={15} aria-hidden />
export const RegenerateIcon = () => <RefreshCw size={15} aria-hidden />
export const ContinueIcon = () => <Play size={15} aria-hidden />
