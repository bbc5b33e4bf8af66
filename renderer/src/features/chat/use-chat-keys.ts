import type { RefObject } from 'react'
import { useAction } from '../../state/actions'
import type { ChatItem } from './items'
import { regenerateAnswer } from './message-actions'
import type { MessageActions } from './messages'

/**
 * The chat's named actions (state/shortcuts.ts): regenerate the last answer, edit the last
 * message, fork at the selected message (or the latest event). Each declines (`false`) when
 * there is nothing to act on, leaving the key to the page.
 */
export function useChatKeys(
  actions: MessageActions,
  items: readonly ChatItem[],
  selectedSeq: number | undefined,
  scroller: RefObject<HTMLElement | null>,
  onError: (sentence: string) => void,
): void {
  useAction('regenerate', () => {
    const answer = items.findLast((item) => item.kind === 'assistant')
    if (answer === undefined) return false
    void regenerateAnswer(actions, actions.events(), answer.seq).then(
      (failed) => failed && onError(failed),
    )
    return true
  })
  useAction('edit-last-message', () => {
    // The last user message's own Edit button: the chat follows the end, so it is rendered.
    const buttons = scroller.current?.querySelectorAll<HTMLButtonElement>(
      'button[aria-label="Edit message"]:not(:disabled)',
    )
    const last = buttons === undefined ? undefined : buttons[buttons.length - 1]
    if (last === undefined) return false
    last.click()
    return true
  })
  useAction('fork-here', () => {
    const atSeq = selectedSeq ?? actions.events().at(-1)?.seq
    if (atSeq === undefined) return false
    void actions.api
      .call('session/fork', { sessionId: actions.sessionId, atSeq })
      .then((forked) => {
        if (forked.ok) actions.onOpenSession(forked.value.id)
        else onError(`Could not fork: ${forked.error.message}`)
      })
    return true
  })
}
