import { z } from 'zod'
import { messageOf } from '../log/messages.js'
import type { Message } from '../log/messages.js'
import type { Session } from '../log/session.js'
import type { SurfaceNode } from '../log/surface.js'
import { defineTool, ToolError } from '../tools/types.js'
import type { Tool } from '../tools/types.js'
import type { Store } from '../store/index.js'
import { originOf, searchBranches } from './branches.js'
import { transcript } from './compactor.js'

const schema = z.object({
  query: z
    .string()
    .min(1)
    .optional()
    .describe('Words to find (all must appear, any case) in the compacted history'),
  fromSeq: z.number().int().nonnegative().optional().describe('Read hidden events from this seq'),
  toSeq: z.number().int().nonnegative().optional().describe('… up to and including this seq'),
  limit: z.number().int().min(1).max(50).default(10).describe('At most this many events'),
  branches: z
    .boolean()
    .optional()
    .describe(
      'With query: also search the other branches of this conversation (forks the user made from it or from its earlier turns), which you have not seen',
    ),
})

/**
 * Every node the model cannot read in full: what checkpoints stand in for (nested ones
 * included) and pruned outputs. Returned unpruned, so recall shows the originals.
 */
function hiddenNodes(nodes: readonly SurfaceNode[], isInsideCheckpoint = false): SurfaceNode[] {
  return nodes.flatMap((node) => {
    if (node.kind === 'checkpoint') return hiddenNodes(node.replaced ?? [], true)
    if (isInsideCheckpoint || node.isPruned) return [{ ...node, isPruned: false }]
    return []
  })
}

/**
 * `recall`: reads what a compaction checkpoint hid from the model's view, by words or by seq
 * range, so a short summary loses no facts; each hit says which branch wrote it (this one, or an
 * ancestor before this branch's fork point). With `branches` and a store, it also searches the
 * sibling branches (branches.ts). Read-only.
 */
export function recallTool(session: () => Session, store?: Store): Tool {
  return defineTool({
    name: 'recall',
    brief: 'Search (query) or read (fromSeq..toSeq) the compacted earlier conversation.',
    description:
      'Search or read the earlier part of this conversation that was compacted into a summary. ' +
      'Use it when the summary lacks a detail you need (an exact error, a file’s old content, a command’s output). ' +
      'Give `query` words to search, or `fromSeq`/`toSeq` (the seq numbers it reports) to read events in full. ' +
      'With `branches: true`, a query also searches the other branches of this conversation (forks the user made), and each hit names its branch.',
    schema,
    kind: 'read',
    isConcurrencySafe: () => true,
    run: ({ query, fromSeq, toSeq, limit, branches }) => {
      if (query === undefined && fromSeq === undefined && toSeq === undefined)
        throw new ToolError('INVALID_ARGUMENTS', 'Give a query, or a fromSeq/toSeq range.')
      if (branches === true && query === undefined)
        throw new ToolError('INVALID_ARGUMENTS', 'Searching other branches needs a query.')
      const s = session()
      const others =
        branches === true && store !== undefined && query !== undefined
          ? searchBranches(store, s.id, query, limit)
          : []
      const hidden = hiddenNodes(s.surfaceNodes()).sort((a, b) => a.seq - b.seq)
      if (hidden.length === 0 && branches !== true)
        return Promise.resolve({ output: 'Nothing is compacted in this conversation yet.' })
      const origin = store === undefined ? () => '' : originOf(store, s.id)
      const eventAt = (seq: number) => {
        const event = s.event(seq)
        if (!event) throw new Error(`seq ${seq} is not in the log`)
        return event
      }
      const terms = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean)
      const found: { seq: number; message: Message }[] = []
      for (const node of hidden) {
        if (fromSeq !== undefined && node.seq < fromSeq) continue
        if (toSeq !== undefined && node.seq > toSeq) continue
        const message = messageOf(node, eventAt)
        const text = transcript([message], Infinity).toLowerCase()
        if (terms.every((term) => text.includes(term))) found.push({ seq: node.seq, message })
        if (found.length >= limit) break
      }
      const parts = [
        ...found.map(
          ({ seq, message }) => `--- seq ${seq}${origin(seq)}\n${transcript([message], Infinity)}`,
        ),
        ...others.map(
          (hit) =>
            `--- seq ${hit.seq} of another branch: ${hit.branch}\n${transcript([hit.message], Infinity)}`,
        ),
      ]
      if (parts.length === 0) {
        const range =
          hidden.length === 0
            ? 'Nothing is compacted in this conversation yet.'
            : `Compacted seqs: ${hidden[0]?.seq ?? 0}..${hidden.at(-1)?.seq ?? 0}.`
        return Promise.resolve({
          output: `No ${branches === true ? 'event of this or another branch' : 'compacted event'} matches${query ? ` "${query}"` : ''}. ${range}`,
        })
      }
      return Promise.resolve({ output: parts.join('\n\n') })
    },
  })
}
