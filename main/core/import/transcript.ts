/**
 * The shared shape every format's reader produces: a session of another tool reduced to what
 * Bridle can carry (user words, assistant text, reasoning and calls, results, notes), as a tree
 * of nodes so that a tool whose sessions branch (pi) keeps its branches. A linear format gives a
 * chain. `write.ts` turns a transcript into Bridle sessions; the readers know nothing of the log.
 */
import type { AssistantBlock } from '../../../protocol/events.js'

export const IMPORT_SOURCES = ['claude-code', 'codex', 'pi', 'deepseek-harness'] as const
export type ImportSource = (typeof IMPORT_SOURCES)[number]

/** What the user said (`input`), or context a tool added to the conversation (`context`). */
export interface UserItem {
  readonly kind: 'user'
  readonly text: string
  readonly role: 'input' | 'context'
}

/** One model reply: its blocks in order (a call's `args` is the JSON text of its arguments). */
export interface AssistantItem {
  readonly kind: 'assistant'
  readonly blocks: readonly AssistantBlock[]
  readonly model?: string
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number }
  /** Parts of the reply Bridle cannot carry (an image, a provider's server-side tool): notices. */
  readonly notes?: readonly string[]
}

/** A call's result, matched to the call by `callId`. */
export interface ResultItem {
  readonly kind: 'result'
  readonly callId: string
  readonly output: string
  readonly isError: boolean
}

/** Something of the source that has no Bridle equivalent: kept as a notice, never dropped. */
export interface NoteItem {
  readonly kind: 'note'
  readonly text: string
}

export type Item = UserItem | AssistantItem | ResultItem | NoteItem

/**
 * One entry of the source. `parentId` names an earlier node (null: a root); a node without an
 * item keeps the tree connected (a source entry that carried nothing to import). `at` is epoch
 * milliseconds when the source recorded a time.
 */
export interface TranscriptNode {
  readonly id: string
  readonly parentId: string | null
  readonly at?: number
  readonly item?: Item
}

export interface Transcript {
  readonly source: ImportSource
  /** The tool's own id for the session. */
  readonly sourceSessionId?: string
  /** The version of the tool that wrote the file, when the file says. */
  readonly sourceVersion?: string
  /** The folder the file says the session ran in: untrusted, never used without consent. */
  readonly recordedProjectDir?: string
  /** A name the source gave the session. */
  readonly title?: string
  /** In file order; the last node is the leaf the source would resume from. */
  readonly nodes: readonly TranscriptNode[]
  /**
   * Source entries left out because they carry nothing a conversation needs (the UI's copies
   * of items, token counters, settings), counted by kind: said in one notice, not silently.
   */
  readonly skipped: ReadonlyMap<string, number>
}

/** Builds a linear transcript's nodes: each node's parent is the one before it. */
export class Chain {
  readonly nodes: TranscriptNode[] = []
  readonly skipped = new Map<string, number>()

  add(item: Item, at?: number): void {
    const parentId = this.nodes.at(-1)?.id ?? null
    this.nodes.push({
      id: String(this.nodes.length),
      parentId,
      ...(at === undefined ? {} : { at }),
      item,
    })
  }

  skip(kind: string): void {
    this.skipped.set(kind, (this.skipped.get(kind) ?? 0) + 1)
  }

  note(text: string, at?: number): void {
    this.add({ kind: 'note', text }, at)
  }
}

/** Epoch milliseconds of an ISO time or a number of ms, or undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value)
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined
}

/** The longest excerpt of a source entry a note carries. */
export const MAX_NOTE_EXCERPT = 2000

/** `value` as JSON, cut to MAX_NOTE_EXCERPT characters with the rest counted. */
export function excerpt(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : ((JSON.stringify(value) as string | undefined) ?? String(value))
  if (text.length <= MAX_NOTE_EXCERPT) return text
  return `${text.slice(0, MAX_NOTE_EXCERPT)}… (${text.length - MAX_NOTE_EXCERPT} more characters)`
}

/** The text of content given as a string or a list of `{ type: 'text', text }` blocks. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : excerpt(content)
  return content
    .map((block) => {
      if (typeof block === 'string') return block
      if (isRecord(block) && typeof block.text === 'string') return block.text
      return `[${isRecord(block) && typeof block.type === 'string' ? block.type : 'content'} not imported]`
    })
    .join('\n')
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined
