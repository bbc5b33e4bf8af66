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
  /** Scrolls the message at a seq into view. */
  reveal: (seq: number) => void,
  onError: (sentence: string) => void,
): void {
  useAction('regenerate', () => {
    const answer = items.findLast((item) => item.kind === 'assistant')
    if (answer === undefined) return false
    void regenerateAnswer(actions, answer.seq).then((outcome) => {
      if (outcome.status === 'failed') onError(outcome.message)
    })
    return true
  })
  useAction('edit-last-message', () => {
    // What the message's Edit button does, whether or not its row is rendered now.
    const message = items.findLast((item) => item.kind === 'user')
    if (message === undefined) return false
    actions.onEdit(message.seq)
    reveal(message.seq)
    return true
  })
  useAction('fork-here', () => {
    // As the message's "Fork from here": the fork's history ends with that message (or event).
    const lastSeq = selectedSeq ?? actions.events().at(-1)?.seq
    if (lastSeq === undefined) return false
    const atSeq = lastSeq + 1
    void actions.api
      .call('session/fork', { sessionId: actions.sessionId, atSeq })
      .then((forked) => {
        if (forked.ok) actions.onOpenSession(forked.value.id)
        else onError(`Could not fork: ${forked.error.message}`)
      })
    return true
  })
}
