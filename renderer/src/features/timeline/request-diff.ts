/**
 * What changed between two requests of a session, pure. Requests extend each other (the system
 * prompt is fixed, history only grows) until a checkpoint replaces a range with its summary, so
 * messages are matched by where they come from (role, seq, callId), not by text: the diff says
 * which are new, which are gone (and which checkpoint took them), and which kept their place but
 * changed (a pruned tool output, an edited system prompt).
 */
import type { RequestView } from '../../../../protocol/contract'

export type RequestMessage = RequestView['messages'][number]

export type MessageStatus = 'same' | 'new' | 'changed'

export interface DiffEntry {
  readonly message: RequestMessage
  readonly status: MessageStatus
  /** With `changed`: the previous request's message. */
  readonly before?: RequestMessage
}

export interface RemovedEntry {
  readonly message: RequestMessage
  /** The seq of the checkpoint whose summary replaced it, when one did. */
  readonly replacedBy?: number
}

export interface RequestDiff {
  /** Every message of the newer request, in order, with how it relates to the older one. */
  readonly entries: readonly DiffEntry[]
  /** Messages of the older request that the newer one no longer has. */
  readonly removed: readonly RemovedEntry[]
  /** How many leading messages are identical: what a server's prefix cache can reuse. */
  readonly sharedPrefix: number
  readonly addedTokens: number
  readonly removedTokens: number
  readonly tools: { readonly added: readonly string[]; readonly removed: readonly string[] }
  /** The params (temperature, max tokens ...) whose values differ, by name. */
  readonly changedParams: readonly string[]
}

/** A checkpoint's replaced range, to say which checkpoint took a removed message. */
export interface CheckpointRange {
  readonly seq: number
  readonly fromSeq: number
  readonly toSeq: number
}

/** Identity of a message across requests: its source event, and for tools the call. */
export const messageKey = (message: RequestMessage): string =>
  `${message.role}:${message.seq}:${message.callId ?? ''}`

const sameMessage = (a: RequestMessage, b: RequestMessage): boolean =>
  a.content === b.content &&
  a.kind === b.kind &&
  JSON.stringify(a.toolCalls ?? []) === JSON.stringify(b.toolCalls ?? [])

/**
 * Diffs `current` against `previous` (the session's request before it). Without a previous
 * request every message is new. `checkpoints` (optional) attribute removed messages to the
 * checkpoint whose range holds them; without them, a single new summary message takes them all.
 */
export function diffRequests(
  previous: RequestView | undefined,
  current: RequestView,
  checkpoints: readonly CheckpointRange[] = [],
): RequestDiff {
  const before = new Map((previous?.messages ?? []).map((m) => [messageKey(m), m]))
  const entries: DiffEntry[] = current.messages.map((message) => {
    const old = before.get(messageKey(message))
    if (old === undefined) return { message, status: 'new' }
    return sameMessage(old, message)
      ? { message, status: 'same' }
      : { message, status: 'changed', before: old }
  })
  const currentKeys = new Set(current.messages.map(messageKey))
  const newSummaries = entries.filter((e) => e.status === 'new' && e.message.kind === 'summary')
  const onlySummary = newSummaries.length === 1 ? newSummaries[0]?.message.seq : undefined
  const removed: RemovedEntry[] = (previous?.messages ?? [])
    .filter((message) => !currentKeys.has(messageKey(message)))
    .map((message) => {
      const range = checkpoints.find((c) => message.seq >= c.fromSeq && message.seq <= c.toSeq)
      const replacedBy = range?.seq ?? onlySummary
      return replacedBy === undefined ? { message } : { message, replacedBy }
    })

  let sharedPrefix = 0
  const older = previous?.messages ?? []
  while (sharedPrefix < Math.min(older.length, current.messages.length)) {
    const a = older[sharedPrefix]
    const b = current.messages[sharedPrefix]
    if (a === undefined || b === undefined) break
    if (messageKey(a) !== messageKey(b) || !sameMessage(a, b)) break
    sharedPrefix++
  }

  const oldTools = new Set((previous?.tools ?? []).map((t) => t.name))
  const newTools = new Set(current.tools.map((t) => t.name))
  const params = new Set([...Object.keys(previous?.params ?? {}), ...Object.keys(current.params)])
  return {
    entries,
    removed,
    sharedPrefix,
    addedTokens: entries
      .filter((e) => e.status !== 'same')
      .reduce((sum, e) => sum + e.message.tokens, 0),
    removedTokens: removed.reduce((sum, r) => sum + r.message.tokens, 0),
    tools: {
      added: previous === undefined ? [] : [...newTools].filter((name) => !oldTools.has(name)),
      removed: [...oldTools].filter((name) => !newTools.has(name)),
    },
    changedParams:
      previous === undefined
        ? []
        : [...params].filter(
            (name) =>
              JSON.stringify(previous.params[name]) !== JSON.stringify(current.params[name]),
          ),
  }
}

/** The request/start before `seq` among `starts` (seqs of a session's request/start events). */
export function previousRequestSeq(starts: readonly number[], seq: number): number | undefined {
  let found: number | undefined
  for (const start of starts)
    if (start < seq && (found === undefined || start > found)) found = start
  return found
}
