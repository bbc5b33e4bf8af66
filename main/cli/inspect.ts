import { Session, summarizeEvent } from '../core/log/index.js'
import type { SessionRow, Store } from '../core/store/index.js'

const time = (at: number) => new Date(at).toISOString().replace('T', ' ').slice(0, 19)

/** `bridle sessions`: the session tree, newest activity first, forks indented under parents. */
export function printSessions(store: Store, write: (line: string) => void): void {
  const all = store.listTree()
  if (all.length === 0) {
    write('No sessions yet.')
    return
  }
  const children = new Map<string | null, SessionRow[]>()
  // A subagent sits under the session that started it (a forked one too); a fork under its parent.
  for (const row of all) {
    const above = row.spawnedBy?.sessionId ?? row.parentId
    const parent = above !== null && all.some((s) => s.id === above) ? above : null
    children.set(parent, [...(children.get(parent) ?? []), row])
  }
  const visit = (parent: string | null, depth: number) => {
    const rows = [...(children.get(parent) ?? [])].sort((a, b) => b.updatedAt - a.updatedAt)
    for (const row of rows) {
      const fork =
        row.spawnedBy !== null
          ? ` (subagent of call ${row.spawnedBy.callId}${row.forkSeq === null ? '' : `, forked at seq ${row.forkSeq}`})`
          : row.forkSeq === null
            ? ''
            : ` (fork at seq ${row.forkSeq})`
      write(
        `${'  '.repeat(depth)}${row.id}  ${time(row.updatedAt)}  ${String(row.nextSeq).padStart(6)} events  ` +
          `${String(row.messageCount).padStart(4)} msgs  ${row.title ?? '(untitled)'}${fork}  ${row.projectDir}`,
      )
      visit(row.id, depth + 1)
    }
  }
  visit(null, 0)
}

export interface EventFilter {
  readonly types?: readonly string[]
  readonly turn?: number
  readonly fromSeq?: number
  readonly limit?: number
}

/** `bridle events <id>`: the timeline, one line per event (seq, time, turn.step, type, summary). */
export function printEvents(
  store: Store,
  sessionId: string,
  filter: EventFilter,
  write: (line: string) => void,
): void {
  const session = Session.open(store, sessionId, { mode: 'read' })
  let shown = 0
  for (const event of session.slice(filter.fromSeq ?? 0)) {
    if (filter.types && !filter.types.includes(event.type)) continue
    if (filter.turn !== undefined && event.turn !== filter.turn) continue
    if (filter.limit !== undefined && shown >= filter.limit) break
    shown++
    const where = event.turn === 0 ? '   ' : `${event.turn}.${event.step}`
    write(
      `${String(event.seq).padStart(6)}  ${time(event.at)}  ${where.padStart(5)}  ${event.type.padEnd(22)} ${summarizeEvent(event)}`,
    )
  }
}

/** `bridle search <text>`: full-text hits across every session. */
export function printSearch(
  store: Store,
  text: string,
  limit: number,
  write: (line: string) => void,
): void {
  const hits = store.search(text, { limit })
  if (hits.length === 0) write(`Nothing found for "${text}".`)
  for (const hit of hits)
    write(
      `${hit.sessionId}  seq ${String(hit.seq).padStart(6)}  ${hit.type.padEnd(18)} ${hit.snippet}`,
    )
}

/** `bridle show <id>`: the conversation as a person reads it, from the log (compacted parts too). */
export function printTranscript(
  store: Store,
  sessionId: string,
  write: (line: string) => void,
): void {
  const session = Session.open(store, sessionId, { mode: 'read' })
  for (const event of session.slice()) {
    switch (event.type) {
      case 'user/message':
        if (event.data.kind === 'input') write(`\n> ${event.data.content.replace(/\n/g, '\n> ')}\n`)
        break
      case 'assistant/message':
        for (const block of event.data.blocks) {
          if (block.type === 'text') write(block.text)
          if (block.type === 'tool-call') write(`  [${block.name} ${block.args}]`)
        }
        if (event.data.interrupted) write('  (interrupted)')
        break
      case 'tool/result':
        write(
          `  [${event.data.ok ? 'ok' : event.data.error.code}] ${summarizeEvent(event).split(': ').slice(1).join(': ')}`,
        )
        break
      case 'compaction/checkpoint':
        write(
          `\n-- compacted ${event.data.fromSeq}..${event.data.toSeq} (${event.data.tokensBefore} -> ${event.data.tokensAfter} tokens) --`,
        )
        break
      case 'turn/end':
        if (event.data.reason !== 'completed') write(`  (turn ended: ${event.data.reason})`)
        break
      case 'error':
        write(`  error ${event.data.code}: ${event.data.message}`)
        break
      default:
        break
    }
  }
}
