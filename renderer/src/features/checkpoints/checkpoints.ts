/**
 * The session's checkpoints as the view lists them, projected from its events: each
 * `compaction/checkpoint` with its range and savings, marked undone when a later
 * `compaction/undone` names it. Pure, so the panel only renders.
 */
import type { EventDto } from '../../../../protocol/contract'
import { checkpointsOf } from '../../state/event-selectors'

export interface Checkpoint {
  readonly seq: number
  readonly at: number
  readonly turn: number
  readonly fromSeq: number
  readonly toSeq: number
  readonly summary: string
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly model?: string
  /** The seq of the `compaction/undone` that put the originals back, if one did. */
  readonly undoneSeq?: number
}

/** Checkpoints in log order, each marked undone once a later `compaction/undone` names it. */
export function listCheckpoints(events: readonly EventDto[]): Checkpoint[] {
  return checkpointsOf(events).map(({ event, undoneSeq }) => {
    const { fromSeq, toSeq, summary, tokensBefore, tokensAfter, model } = event.data
    return {
      seq: event.seq,
      at: event.at,
      turn: event.turn,
      fromSeq,
      toSeq,
      summary,
      tokensBefore,
      tokensAfter,
      ...(model === undefined ? {} : { model }),
      ...(undoneSeq === undefined ? {} : { undoneSeq }),
    }
  })
}

/** The share of tokens a checkpoint saved, in whole percent (0 when there was nothing). */
export function savedPercent(checkpoint: Pick<Checkpoint, 'tokensBefore' | 'tokensAfter'>): number {
  if (checkpoint.tokensBefore <= 0) return 0
  const saved = 1 - checkpoint.tokensAfter / checkpoint.tokensBefore
  return Math.round(Math.max(0, saved) * 100)
}
