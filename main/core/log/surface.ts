import { LogError } from './errors.js'

/** One model-visible event as the model sees it, in order. */
export interface SurfaceNode {
  readonly seq: number
  readonly kind: 'user' | 'assistant' | 'tool' | 'checkpoint'
  /** Calls an assistant node proposes. */
  readonly callIds?: readonly string[]
  /** The call a tool node answers. */
  readonly callId?: string
  /** What a checkpoint node stands in for, so `undo` can put it back. */
  readonly replaced?: readonly SurfaceNode[]
  /** A tool node whose output the model now sees only as a stub. */
  readonly isPruned?: boolean
}

export interface SurfaceMark {
  readonly nodes: SurfaceNode[]
  readonly length: number
  readonly generation: number
}

const invalid = (message: string) => new LogError('INVALID_REPLACE', message)

/**
 * The model's view of a session: an ordered index over its model-visible events. `add`
 * appends; `replace` swaps a contiguous run for one checkpoint node (the originals stay in the
 * log, and in the node, for `undo`). Every replace bumps `generation`, which tells derived
 * caches to start over.
 */
export class Surface {
  private list: SurfaceNode[] = []
  private gen = 0

  get nodes(): readonly SurfaceNode[] {
    return this.list
  }
  get generation(): number {
    return this.gen
  }

  add(node: SurfaceNode): void {
    this.list.push(node)
  }

  /** Throws unless `replace(fromSeq, toSeq)` would be valid; returns the positions it covers. */
  checkReplace(fromSeq: number, toSeq: number): { from: number; to: number } {
    const from = this.list.findIndex((node) => node.seq === fromSeq)
    const to = this.list.findIndex((node) => node.seq === toSeq)
    if (from < 0)
      throw invalid(`seq ${fromSeq} is not on the surface (not model-visible, or already replaced)`)
    if (to < 0)
      throw invalid(`seq ${toSeq} is not on the surface (not model-visible, or already replaced)`)
    if (from > to) throw invalid(`the range ${fromSeq}..${toSeq} is reversed on the surface`)
    const partners = this.pairs()
    for (let i = from; i <= to; i++) {
      for (const partner of partners.get(i) ?? []) {
        if (partner < from || partner > to) {
          const node = this.list[i]
          throw invalid(
            `replacing ${fromSeq}..${toSeq} would split the tool call ${node?.callId ?? node?.callIds?.join(',') ?? ''} ` +
              `(seq ${node?.seq}) from its partner at seq ${this.list[partner]?.seq ?? '(not yet answered)'}`,
          )
        }
      }
      const node = this.list[i]
      if (
        node?.kind === 'assistant' &&
        (node.callIds?.length ?? 0) > (partners.get(i)?.length ?? 0)
      ) {
        throw invalid(
          `replacing ${fromSeq}..${toSeq} would hide calls of seq ${node.seq} whose results are still to come`,
        )
      }
    }
    return { from, to }
  }

  replace(fromSeq: number, toSeq: number, bySeq: number): void {
    const { from, to } = this.checkReplace(fromSeq, toSeq)
    const replaced = this.list.slice(from, to + 1)
    const node: SurfaceNode = { seq: bySeq, kind: 'checkpoint', replaced }
    // A new array, never an in-place splice: a mark taken before still restores the old one.
    this.list = [...this.list.slice(0, from), node, ...this.list.slice(to + 1)]
    this.gen++
  }

  /** Puts back what the checkpoint node at `checkpointSeq` replaced. */
  checkUndo(checkpointSeq: number): number {
    const at = this.list.findIndex((node) => node.seq === checkpointSeq)
    const node = this.list[at]
    if (!node || node.kind !== 'checkpoint') {
      throw invalid(
        `seq ${checkpointSeq} is not a checkpoint on the surface (undone already, or inside a later one)`,
      )
    }
    return at
  }

  undo(checkpointSeq: number): void {
    const at = this.checkUndo(checkpointSeq)
    const node = this.list[at]
    this.list = [...this.list.slice(0, at), ...(node?.replaced ?? []), ...this.list.slice(at + 1)]
    this.gen++
  }

  /** Throws unless every seq is an unpruned tool result on the surface. */
  checkPrune(seqs: readonly number[]): void {
    const tools = new Map(this.list.map((node) => [node.seq, node]))
    for (const seq of seqs) {
      const node = tools.get(seq)
      if (node?.kind !== 'tool')
        throw invalid(`seq ${seq} is not a tool result on the surface, so it cannot be pruned`)
      if (node.isPruned) throw invalid(`the output at seq ${seq} is already pruned`)
    }
  }

  /** Shows the outputs at `seqs` as stubs from now on. */
  prune(seqs: readonly number[]): void {
    this.checkPrune(seqs)
    const pruned = new Set(seqs)
    this.list = this.list.map((node) => (pruned.has(node.seq) ? { ...node, isPruned: true } : node))
    this.gen++
  }

  mark(): SurfaceMark {
    return { nodes: this.list, length: this.list.length, generation: this.gen }
  }

  restore(mark: SurfaceMark): void {
    this.list = mark.nodes
    this.list.length = mark.length
    this.gen = mark.generation
  }

  /**
   * For each position, the positions of its partners: a tool node pairs with the nearest
   * earlier assistant node that proposed its callId; the assistant node lists its answers.
   */
  private pairs(): Map<number, number[]> {
    const partners = new Map<number, number[]>()
    const proposer = new Map<string, number>()
    this.list.forEach((node, i) => {
      if (node.kind === 'assistant') for (const id of node.callIds ?? []) proposer.set(id, i)
      if (node.kind === 'tool' && node.callId !== undefined) {
        const p = proposer.get(node.callId)
        if (p === undefined) return
        partners.set(i, [p])
        partners.set(p, [...(partners.get(p) ?? []), i])
        proposer.delete(node.callId)
      }
    })
    return partners
  }
}
