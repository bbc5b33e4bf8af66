/**
 * The session's checkpoints as the view lists them, projected from its events: each
 * `compaction/checkpoint` with its range and savings, marked undone when a later
 * `compaction/undone` names it. Pure, so the panel only renders.
 */
import type { EventDto } from '../../../../protocol/contract'

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

const num = (value: unknown): number => (typeof value === 'number' ? value : 0)

/** Checkpoints in log order; malformed payloads are read as zeros rather than dropped. */
export function listCheckpoints(events: readonly EventDto[]): Checkpoint[] {
  const undone = new Map<number, number>()
  for (const event of events) {
    if (event.type === 'compaction/undone') {
      const target = event.data['checkpointSeq']
      if (typeof target === 'number' && !undone.has(target)) undone.set(target, event.seq)
    }
  }
  return events
    .filter((event) => event.type === 'compaction/checkpoint')
    .map((event) => {
      const { data } = event
      const model = data['model']
      const summary = data['summary']
      const undoneSeq = undone.get(event.seq)
      return {
        seq: event.seq,
        at: event.at,
        turn: event.turn,
        fromSeq: num(data['fromSeq']),
        toSeq: num(data['toSeq']),
        summary: typeof summary === 'string' ? summary : '',
        tokensBefore: num(data['tokensBefore']),
        tokensAfter: num(data['tokensAfter']),
        ...(typeof model === 'string' ? { model } : {}),
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
