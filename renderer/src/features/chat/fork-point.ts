/**
 * Where Edit and Regenerate fork: just before the user's message entered the log, so the fork's
 * history holds neither that message nor its answer. A message enters as `inbox/queued` (the
 * text the user sent), before the turn that claims it starts; the `user/message` comes later,
 * after `inbox/claimed`. Forking at the queued event's seq keeps everything before it. Pure (no
 * React, no bridge), so unit-tested (test/renderer/fork-point.test.ts).
 */
import type { EventDto } from '../../../../protocol/contract'
import { indexOfSeq } from '../../state/event-cache'

export interface ForkPoint {
  /** The `atSeq` for `session/fork`: the child holds the events before it. */
  readonly atSeq: number
  /** The message as the user sent it (what Regenerate sends again). */
  readonly text: string
}

const isUserInput = (event: EventDto | undefined): boolean =>
  event?.type === 'user/message' && event.data.kind !== 'context' && event.data.kind !== 'notice'

/**
 * The fork point of the user message at `userSeq`: its `inbox/queued` when the log has it; else
 * its turn's start when it is the turn's first input; else the message itself. Undefined when
 * `userSeq` is not a user message of `events` (seq order).
 */
export function forkPointOfUser(
  events: readonly EventDto[],
  userSeq: number,
): ForkPoint | undefined {
  // The feed holds the forwarded events only: seqs have gaps, so the place is searched for.
  const at = indexOfSeq(events, userSeq) ?? -1
  const message = events[at]
  if (message?.type !== 'user/message' || !isUserInput(message)) return undefined
  const text = message.data.content
  // The claim this message came from, and its place among the inputs after that claim.
  let place = 0
  let claim: EventDto | undefined
  let claimAt = -1
  let turnStart: EventDto | undefined
  for (let i = at - 1; i >= 0; i--) {
    const event = events[i]
    if (event === undefined) break
    if (isUserInput(event)) place++
    if (event.type === 'inbox/claimed') {
      claim = event
      claimAt = i
      break
    }
    if (event.type === 'turn/start') {
      turnStart = event
      break
    }
  }
  if (claim?.type === 'inbox/claimed') {
    const requestId = claim.data.requestIds[place] ?? claim.data.requestIds[0]
    for (let i = claimAt - 1; i >= 0; i--) {
      const event = events[i]
      if (event?.type === 'inbox/queued' && event.data.requestId === requestId) {
        return { atSeq: Math.max(1, event.seq), text: event.data.message || text }
      }
    }
  }
  if (turnStart !== undefined && place === 0) return { atSeq: Math.max(1, turnStart.seq), text }
  return { atSeq: Math.max(1, userSeq), text }
}

/** The user message an answer at `answerSeq` replies to: the last input before it. */
export function promptOfAnswer(events: readonly EventDto[], answerSeq: number): number | undefined {
  for (let i = (indexOfSeq(events, answerSeq) ?? 0) - 1; i >= 0; i--) {
    const event = events[i]
    if (isUserInput(event)) return event?.seq
  }
  return undefined
}

/** What Continue sends: an ordinary user message, so the request and the log say what happened. */
export const CONTINUE_TEXT = 'Continue from where you stopped.'
