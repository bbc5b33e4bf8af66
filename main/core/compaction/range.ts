import type { SurfaceNode } from '../log/surface.js'

export interface RangeOptions {
  /** The last K user inputs (and everything after the first of them) stay verbatim. */
  readonly keepUserTurns: number
  /** Whether the node at this position is the user's own input (not context or a summary). */
  readonly isUserInput: (node: SurfaceNode) => boolean
  /** Tokens of one node, for the fallback when a single turn holds most of the context. */
  readonly tokensOf: (node: SurfaceNode) => number
  /** When keeping K turns would keep everything, keep at least this many tokens of the tail. */
  readonly keepTailTokens: number
}

export interface CompactionRange {
  /** Positions on the surface, inclusive. */
  readonly from: number
  readonly to: number
  readonly fromSeq: number
  readonly toSeq: number
}

/**
 * Chooses what a checkpoint replaces: from the start of the surface (after the latest
 * checkpoint, whose summary stays) up to just before the last `keepUserTurns` user inputs. When
 * that leaves nothing (one long turn), it keeps a tail of about `keepTailTokens` instead. The end
 * moves back until no tool call is separated from its result, so a parallel batch is never split.
 * Returns undefined when fewer than two nodes could be replaced.
 */
export function chooseRange(
  nodes: readonly SurfaceNode[],
  opts: RangeOptions,
): CompactionRange | undefined {
  let from = 0
  nodes.forEach((node, i) => {
    if (node.kind === 'checkpoint') from = i + 1
  })
  const inputs: number[] = []
  for (let i = from; i < nodes.length; i++) {
    const node = nodes[i]
    if (node && opts.isUserInput(node)) inputs.push(i)
  }
  const keepFrom =
    opts.keepUserTurns > 0 ? inputs[inputs.length - opts.keepUserTurns] : nodes.length
  let to = (keepFrom ?? from) - 1
  if (to - from + 1 < 2) to = tailBoundary(nodes, from, opts) - 1
  to = closedBoundary(nodes, from, to)
  const first = nodes[from]
  const last = nodes[to]
  if (to - from + 1 < 2 || !first || !last) return undefined
  return { from, to, fromSeq: first.seq, toSeq: last.seq }
}

/**
 * The first position of a tail that holds about `keepTailTokens` (walking back from the end). A
 * node that would take the tail far past the budget (a huge tool output in a small window) is
 * left to the summary rather than kept verbatim.
 */
function tailBoundary(nodes: readonly SurfaceNode[], from: number, opts: RangeOptions): number {
  let tokens = 0
  for (let i = nodes.length - 1; i > from; i--) {
    const node = nodes[i]
    const size = node ? opts.tokensOf(node) : 0
    if (tokens > 0 && tokens + size > opts.keepTailTokens * TAIL_OVERSHOOT) return i + 1
    tokens += size
    if (tokens >= opts.keepTailTokens) return i
  }
  return from
}

/** How far past its budget the kept tail may go to keep one more node whole. */
const TAIL_OVERSHOOT = 1.5

/**
 * The largest end at or before `to` such that every call in from..end has its result inside the
 * range and every result's call is inside it too.
 */
export function closedBoundary(nodes: readonly SurfaceNode[], from: number, to: number): number {
  for (let end = to; end > from; end--) {
    if (isClosed(nodes, from, end)) return end
  }
  return from
}

function isClosed(nodes: readonly SurfaceNode[], from: number, to: number): boolean {
  const open = new Set<string>()
  for (let i = from; i <= to; i++) {
    const node = nodes[i]
    if (!node) return false
    for (const id of node.callIds ?? []) open.add(id)
    if (node.kind === 'tool' && node.callId !== undefined) {
      // A result whose call lies before the range would lose its call.
      if (!open.delete(node.callId)) return false
    }
  }
  return open.size === 0
}
