/**
 * The session list as a tree of forks and subagents, pure so it is unit-tested without a DOM. The
 * list is what `session/list` paged in plus what `sessions/changed` updated; a fork whose parent
 * is not in the list (not paged in yet, or in the trash) is shown as a root and still names its
 * parent. A subagent (`spawnedBy`) hangs under the session whose `task` call started it, even
 * when it is also seeded with that session's history (`parentId` set too).
 */
import type { EventDto, SessionSummary } from '../../../protocol/contract'

export interface SessionNode {
  readonly session: SessionSummary
  readonly children: readonly SessionNode[]
}

/**
 * Merges summaries into the list by id, newest activity first. Sessions of another project and
 * sessions in the trash are taken out, so one rule serves paging, updates and deletes.
 */
export function upsertSessions(
  list: readonly SessionSummary[],
  incoming: readonly SessionSummary[],
  projectDir: string,
): readonly SessionSummary[] {
  const byId = new Map(list.map((session) => [session.id, session]))
  for (const session of incoming) {
    if (session.deletedAt !== null || session.projectDir !== projectDir) byId.delete(session.id)
    else byId.set(session.id, session)
  }
  return [...byId.values()].sort(byActivity)
}

/** The session a session hangs under in the tree: the one that spawned it, else its fork parent. */
export function treeParentOf(
  session: Pick<SessionSummary, 'parentId' | 'spawnedBy'>,
): string | null {
  return session.spawnedBy?.sessionId ?? session.parentId
}

/** Whether the session is a subagent (a `task` call started it), not a fork or the user's own. */
export const isSubagent = (session: Pick<SessionSummary, 'spawnedBy'>): boolean =>
  session.spawnedBy !== null

/**
 * Roots by the latest activity in their subtree; children (forks and subagents) oldest first.
 */
export function buildSessionTree(sessions: readonly SessionSummary[]): readonly SessionNode[] {
  const byId = new Map(sessions.map((session) => [session.id, session]))
  const childrenOf = new Map<string, SessionSummary[]>()
  const roots: SessionSummary[] = []
  for (const session of sessions) {
    const parentId = treeParentOf(session)
    if (parentId !== null && byId.has(parentId)) {
      const siblings = childrenOf.get(parentId) ?? []
      siblings.push(session)
      childrenOf.set(parentId, siblings)
    } else {
      roots.push(session)
    }
  }
  const build = (session: SessionSummary, seen: Set<string>): SessionNode => {
    seen.add(session.id)
    const children = (childrenOf.get(session.id) ?? [])
      .filter((child) => !seen.has(child.id))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((child) => build(child, seen))
    return { session, children }
  }
  const seen = new Set<string>()
  const nodes = roots.map((root) => build(root, seen))
  // A cycle cannot come from the log, but a bad list must not hide sessions: its members go
  // to the top level.
  for (const session of sessions) {
    if (!seen.has(session.id)) nodes.push(build(session, seen))
  }
  return nodes.sort((a, b) => latestActivity(b) - latestActivity(a))
}

/** The ids on the way from a root to `sessionId` (to expand the tree to the open session). */
export function ancestorsOf(
  sessions: readonly SessionSummary[],
  sessionId: string,
): readonly string[] {
  const byId = new Map(sessions.map((session) => [session.id, session]))
  const path: string[] = []
  const parentOf = (id: string) => {
    const session = byId.get(id)
    return session === undefined ? null : treeParentOf(session)
  }
  let current = parentOf(sessionId)
  while (current !== null && !path.includes(current)) {
    path.push(current)
    current = parentOf(current)
  }
  return path
}

export function sessionTitle(session: Pick<SessionSummary, 'title' | 'createdAt'>): string {
  const title = session.title?.trim()
  return title !== undefined && title !== '' ? title : 'Untitled session'
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date. */
export function formatAge(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000))
  if (seconds < 60) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.round(hours / 24)
  if (days < 30) return `${days} d ago`
  return new Date(at).toLocaleDateString()
}

function byActivity(a: SessionSummary, b: SessionSummary): number {
  return b.updatedAt - a.updatedAt || b.createdAt - a.createdAt
}

function latestActivity(node: SessionNode): number {
  return node.children.reduce(
    (latest, child) => Math.max(latest, latestActivity(child)),
    node.session.updatedAt,
  )
}

/** A key the session tree moves by (the WAI-ARIA tree pattern's). */
export type TreeKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'Home' | 'End'

/** What a key does in the tree: focus another session, or fold or unfold one. */
export type TreeMove =
  | { readonly kind: 'focus'; readonly id: string }
  | { readonly kind: 'fold'; readonly id: string; readonly isFolded: boolean }

interface Visible {
  readonly node: SessionNode
  readonly parent: SessionNode | undefined
}

/** The sessions on screen, top to bottom: a folded session's forks are not. */
export function visibleSessions(
  tree: readonly SessionNode[],
  folded: ReadonlySet<string>,
): readonly Visible[] {
  const out: Visible[] = []
  const walk = (nodes: readonly SessionNode[], parent: SessionNode | undefined) => {
    for (const node of nodes) {
      out.push({ node, parent })
      if (!folded.has(node.session.id)) walk(node.children, node)
    }
  }
  walk(tree, undefined)
  return out
}

/**
 * The tree's answer to `key` with session `fromId` focused: Up and Down move through what is on
 * screen, Home and End to its ends; Right unfolds a folded session or enters its first fork,
 * Left folds an unfolded one or goes up to its parent. Undefined when the key does nothing.
 */
export function treeMove(
  tree: readonly SessionNode[],
  folded: ReadonlySet<string>,
  fromId: string,
  key: TreeKey,
): TreeMove | undefined {
  const rows = visibleSessions(tree, folded)
  const at = rows.findIndex((row) => row.node.session.id === fromId)
  const here = rows[at]
  const focus = (row: Visible | undefined): TreeMove | undefined =>
    row === undefined || row === here ? undefined : { kind: 'focus', id: row.node.session.id }
  if (here === undefined) return focus(rows[0])
  const id = here.node.session.id
  const hasForks = here.node.children.length > 0
  switch (key) {
    case 'ArrowDown':
      return focus(rows[at + 1])
    case 'ArrowUp':
      return focus(rows[at - 1])
    case 'Home':
      return focus(rows[0])
    case 'End':
      return focus(rows.at(-1))
    case 'ArrowRight':
      if (!hasForks) return undefined
      return folded.has(id) ? { kind: 'fold', id, isFolded: false } : focus(rows[at + 1])
    case 'ArrowLeft':
      if (hasForks && !folded.has(id)) return { kind: 'fold', id, isFolded: true }
      return here.parent === undefined ? undefined : { kind: 'focus', id: here.parent.session.id }
  }
}

/** How many sessions fork off `node` at any depth: what a folded row says it hides. */
export function forkCount(node: SessionNode): number {
  return node.children.reduce((sum, child) => sum + 1 + forkCount(child), 0)
}

/**
 * What a folded row says it hides, at any depth, forks and subagents counted apart: "2 forks",
 * "1 subagent", "1 fork, 3 subagents".
 */
export function hiddenText(node: SessionNode): string {
  let forks = 0
  let subagents = 0
  const walk = (parent: SessionNode) => {
    for (const child of parent.children) {
      if (isSubagent(child.session)) subagents++
      else forks++
      walk(child)
    }
  }
  walk(node)
  const parts = [
    forks > 0 ? `${forks} ${forks === 1 ? 'fork' : 'forks'}` : '',
    subagents > 0 ? `${subagents} ${subagents === 1 ? 'subagent' : 'subagents'}` : '',
  ]
  return parts.filter((part) => part !== '').join(', ')
}

/** The name of the group of a session's children, by what they are. */
export function childrenLabel(node: SessionNode, title: string): string {
  const subagents = node.children.filter((child) => isSubagent(child.session)).length
  if (subagents === 0) return `Forks of ${title}`
  if (subagents === node.children.length) return `Subagents of ${title}`
  return `Forks and subagents of ${title}`
}

/**
 * The session to open when `sessionId` leaves the tree while open: the next one down the tree
 * (everything unfolded), else the one above it; undefined when it was the only one. Its own
 * forks are not picked: they stay, but opening one would look like the delete did not happen.
 */
export function neighbourOf(
  sessions: readonly SessionSummary[],
  sessionId: string,
): string | undefined {
  const rows = visibleSessions(buildSessionTree(sessions), new Set())
  const at = rows.findIndex((row) => row.node.session.id === sessionId)
  if (at === -1) return undefined
  const inside = new Set<string>()
  const collect = (node: SessionNode) => {
    inside.add(node.session.id)
    node.children.forEach(collect)
  }
  const here = rows[at]
  if (here !== undefined) collect(here.node)
  const after = rows.slice(at + 1).find((row) => !inside.has(row.node.session.id))
  return (after ?? rows[at - 1])?.node.session.id
}

/** The longest fork-point text a tooltip shows. */
const FORK_POINT_CHARS = 160

/**
 * What a fork starts after, in words: the last message of the user or the model before the fork
 * point, cut to a tooltip's length. `events` are the parent's, oldest first, before `forkSeq`.
 */
export function forkPointText(events: readonly EventDto[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]
    if (event === undefined) continue
    const said = messageText(event)
    if (said === undefined) continue
    const oneLine = said.replace(/\s+/g, ' ').trim()
    if (oneLine === '') continue
    const who = event.type === 'user/message' ? 'You' : 'Answer'
    const cut =
      oneLine.length > FORK_POINT_CHARS ? `${oneLine.slice(0, FORK_POINT_CHARS - 1)}…` : oneLine
    return `${who}: ${cut}`
  }
  return undefined
}

function messageText(event: EventDto): string | undefined {
  if (event.type === 'user/message')
    return event.data.kind === 'input' ? event.data.content : undefined
  if (event.type !== 'assistant/message') return undefined
  const text = event.data.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []))
  return text.length > 0 ? text.join(' ') : undefined
}
