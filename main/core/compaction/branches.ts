/**
 * Recall across branches: which branch wrote an event of a session's history, and a search of
 * the conversation's other branches (forks of it, of its ancestors, and what its ancestors went on
 * to do after this branch forked off). Forks only: a fresh subagent is its own conversation.
 */
import { messageOf } from '../log/messages.js'
import type { Message } from '../log/messages.js'
import { rowToEvent } from '../log/rows.js'
import type { SurfaceNode } from '../log/surface.js'
import type { SessionRow, Store } from '../store/index.js'

/** A hit in another branch: the message, and that branch in words. */
export interface BranchHit {
  readonly sessionId: string
  readonly seq: number
  readonly branch: string
  readonly message: Message
}

const KIND: Readonly<Record<string, SurfaceNode['kind']>> = {
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool',
}

/** The session and its ancestors, nearest first. */
function lineage(store: Store, sessionId: string): SessionRow[] {
  const chain: SessionRow[] = []
  for (let row = store.getSession(sessionId); row;) {
    chain.push(row)
    row = row.parentId === null ? undefined : store.getSession(row.parentId)
  }
  return chain
}

function named(row: SessionRow): string {
  return `"${row.title ?? 'untitled'}" (session ${row.id}${row.forkSeq === null ? '' : `, forked at seq ${row.forkSeq}`})`
}

/**
 * Says where a seq of this session's history was written: nothing for the session's own events,
 * the ancestor for an inherited one.
 */
export function originOf(store: Store, sessionId: string): (seq: number) => string {
  const chain = lineage(store, sessionId)
  return (seq) => {
    // The first link whose own events start at or below seq wrote it.
    for (const [index, row] of chain.entries()) {
      if (seq >= (row.forkSeq ?? 0))
        return index === 0 ? '' : ` (from the earlier branch ${named(row)})`
    }
    return ''
  }
}

/**
 * Searches every other branch of the session's tree for `query` (the store's full-text index),
 * leaving out what is already this session's history. At most `limit` hits, nearest branches
 * first (ancestors' later events, then the rest of the tree by recency).
 */
export function searchBranches(
  store: Store,
  sessionId: string,
  query: string,
  limit: number,
): BranchHit[] {
  const chain = lineage(store, sessionId)
  const root = chain.at(-1)
  if (!root) return []
  const tree = store.listTree()
  const children = new Map<string, SessionRow[]>()
  for (const row of tree)
    if (row.parentId !== null)
      children.set(row.parentId, [...(children.get(row.parentId) ?? []), row])
  // An ancestor's events before the fork of the next link down are this session's history.
  const sharedBelow = new Map<string, number>()
  for (let i = 1; i < chain.length; i++) {
    const ancestor = chain[i]
    const below = chain[i - 1]
    if (ancestor && below) sharedBelow.set(ancestor.id, below.forkSeq ?? 0)
  }
  const others: SessionRow[] = []
  const visit = (row: SessionRow) => {
    if (row.id !== sessionId) others.push(row)
    for (const child of children.get(row.id) ?? []) visit(child)
  }
  visit(root)
  const order = (row: SessionRow) => (sharedBelow.has(row.id) ? 0 : 1)
  others.sort((a, b) => order(a) - order(b) || b.updatedAt - a.updatedAt)
  const hits: BranchHit[] = []
  for (const row of others) {
    const from = sharedBelow.get(row.id) ?? 0
    for (const hit of store.search(query, { sessionId: row.id, limit })) {
      const kind = KIND[hit.type]
      if (hit.seq < from || kind === undefined) continue
      const [stored] = store.readEvents(row.id, { fromSeq: hit.seq, toSeq: hit.seq + 1 })
      if (!stored) continue
      const event = rowToEvent(stored, stored.seq)
      hits.push({
        sessionId: row.id,
        seq: hit.seq,
        branch: named(row),
        message: messageOf({ seq: hit.seq, kind }, () => event),
      })
      if (hits.length >= limit) return hits
    }
  }
  return hits
}
