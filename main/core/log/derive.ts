import { MODEL_VISIBLE } from '../../../protocol/events.js'
import type { LogEvent } from '../../../protocol/events.js'
import { messageOf, systemMessageOf } from './messages.js'
import type { Message } from './messages.js'
import { Surface } from './surface.js'
import type { SurfaceNode } from './surface.js'

/** Applies one event's effect on the model's view: add a node, replace a range, or undo one. */
export function applyToSurface(surface: Surface, event: LogEvent): void {
  switch (event.type) {
    case 'compaction/checkpoint':
      surface.replace(event.data.fromSeq, event.data.toSeq, event.seq)
      return
    case 'compaction/undone':
      surface.undo(event.data.checkpointSeq)
      return
    case 'compaction/pruned':
      surface.prune(event.data.seqs)
      return
    default:
      // A linked call's result (a program's inner call) reaches the model only through its parent's.
      if (event.type === 'tool/result' && event.data.parent) return
      if (MODEL_VISIBLE.has(event.type)) surface.add(surfaceNodeOf(event))
  }
}

function surfaceNodeOf(event: LogEvent): SurfaceNode {
  switch (event.type) {
    case 'assistant/message': {
      const callIds = event.data.blocks.flatMap((block) =>
        block.type === 'tool-call' ? [block.callId] : [],
      )
      return callIds.length > 0
        ? { seq: event.seq, kind: 'assistant', callIds }
        : { seq: event.seq, kind: 'assistant' }
    }
    case 'tool/result':
      return { seq: event.seq, kind: 'tool', callId: event.data.callId }
    default:
      return { seq: event.seq, kind: 'user' }
  }
}

/**
 * The messages the model saw at `seq`, derived from scratch from the events before it (the
 * system prompt of the latest header, then the surface). A pure function of the log: tests use it
 * to rebuild every request a model received and compare it byte for byte.
 */
export function deriveMessagesAt(events: readonly LogEvent[], seq: number): Message[] {
  const surface = new Surface()
  let header: (LogEvent & { type: 'request/header' }) | undefined
  for (const event of events) {
    if (event.seq >= seq) break
    if (event.type === 'request/header') header = event
    applyToSurface(surface, event)
  }
  const byNodeSeq = (at: number): LogEvent => {
    const event = events[at]
    if (event?.seq !== at) throw new Error(`events are not indexed by seq at ${at}`)
    return event
  }
  const messages = surface.nodes.map((node) => messageOf(node, byNodeSeq))
  return header ? [systemMessageOf(header), ...messages] : messages
}
