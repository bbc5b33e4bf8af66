import { messageOf } from '../log/messages.js'
import type { Session } from '../log/session.js'

export interface PruneOptions {
  /** Outputs of the last N steps stay whole. */
  readonly keepSteps: number
  /** Only outputs larger than this are worth a stub. */
  readonly minBytes: number
}

export const DEFAULT_PRUNE: PruneOptions = { keepSteps: 4, minBytes: 4096 }

/**
 * Takes large tool outputs older than the last `keepSteps` steps out of the model's view (a
 * cheaper step than a summary: nothing is rewritten, each becomes a one-line stub naming where
 * to read it). Appends one `compaction/pruned`; returns the seqs pruned (none: nothing appended).
 */
export async function pruneOldOutputs(session: Session, opts: PruneOptions): Promise<number[]> {
  const steps: string[] = []
  for (const event of session.slice()) {
    if (event.type === 'step/start') steps.push(`${event.turn}.${event.step}`)
  }
  // (`slice(-0)` would be every step: keeping none must keep none.)
  const recent = new Set(opts.keepSteps === 0 ? [] : steps.slice(-opts.keepSteps))
  const eventAt = (seq: number) => {
    const event = session.event(seq)
    if (!event) throw new Error(`seq ${seq} is not in the log`)
    return event
  }
  const seqs = session.surfaceNodes().flatMap((node) => {
    if (node.kind !== 'tool' || node.isPruned) return []
    const event = eventAt(node.seq)
    if (recent.has(`${event.turn}.${event.step}`)) return []
    const message = messageOf(node, eventAt)
    return message.role === 'tool' && Buffer.byteLength(message.content) > opts.minBytes
      ? [node.seq]
      : []
  })
  if (seqs.length === 0) return []
  session.append('compaction/pruned', { seqs })
  await session.flush()
  return seqs
}
