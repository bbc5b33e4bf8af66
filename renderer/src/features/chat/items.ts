/**
 * The chat's items: what a session log projects to (projection.ts builds them), and helpers on
 * them. Pure (no React, no DOM, no bridge), so unit-tested as is (test/renderer/chat-items.test.ts).
 *
 * Items are in log order. A tool call is one item, placed where the model asked for it (its
 * `assistant/message`), and its later events (approval, `tool/call`, `tool/result`) update it in
 * place: the card shows the call's whole life where the user expects it. Every item carries `rev`,
 * the last seq that changed it, so `stabilizeItems` can keep unchanged items identical between
 * projections and memoised rows do not re-render.
 */
import type { Attachment } from '../../../../protocol/attachments'
import type { EventDto } from '../../../../protocol/contract'
import type { StreamDelta } from '../feed'
import type { DecidedBy } from '../../state/approval-words'
import type { Data } from './read-json'

/** Codes the log writes when it closes calls a crash left open (protocol/events.ts). */
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'
export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED'
/** The loop's alarm when a server counted less of the prompt than was sent (main/core/tokens/window.ts). */
export const CONTEXT_TRUNCATED_BY_SERVER = 'CONTEXT_TRUNCATED_BY_SERVER'

export type ToolStatus =
  | 'queued'
  | 'awaiting-approval'
  | 'running'
  | 'done'
  | 'failed'
  | 'denied'
  | 'interrupted'
  | 'unknown'
  | 'not-started'

export interface ApprovalView {
  readonly description: string
  readonly approvalKey?: string
  /** Why the call needed more care, as the user was shown it when asked. */
  readonly warnings?: readonly string[]
  readonly decision?: 'allow' | 'deny' | 'cancelled'
  readonly remember?: boolean
  readonly reason?: string
  /** Who decided; absent in logs written before automatic decisions were logged (the user). */
  readonly by?: DecidedBy
  /** The mode in force, or the rule that decided (`bash: npm test *`). */
  readonly detail?: string
  /** The grant "always allow" kept. */
  readonly grant?: string
}

export interface ToolCallView {
  /** Unique in the session (`callKey`): the id alone repeats where a server reuses ids. */
  readonly key: string
  readonly callId: string
  /** The step the model asked for it in. */
  readonly step: number
  readonly name: string
  /** The arguments parsed (from `tool/call`, else the model's JSON text), or undefined. */
  readonly args: unknown
  /** The arguments as the model sent them. */
  readonly argsText: string
  readonly status: ToolStatus
  readonly calledAt?: number
  readonly endedAt?: number
  readonly durationMs?: number
  readonly output?: string
  readonly outputRef?: string
  readonly error?: { readonly code: string; readonly message: string }
  readonly metadata: Data
  readonly approval?: ApprovalView
  /** The format the model wrote this call in, when Bridle read it from the reply's text. */
  readonly textFormat?: string
  /**
   * Whether the command ran in the OS sandbox (`process/started`, then the result's metadata);
   * absent for other tools and in logs written before the sandbox.
   */
  readonly sandboxed?: boolean
  /** The MCP server that provides the tool, and its own name for it (from `tool/call`). */
  readonly mcp?: { readonly server: string; readonly tool: string }
  /**
   * The calls this call made itself (code mode: a `run_code` program's `tools.x(...)`, logged
   * with `parent` naming this call), in the order made; absent when it made none. They are rows
   * of this call's card, never cards of their own.
   */
  readonly inner?: readonly ToolCallView[]
  /**
   * The child session a `task` call started: from `subagent/started` while it runs, else the
   * result's `metadata.subagent` (absent until one of them is logged).
   */
  readonly subagent?: { readonly sessionId: string; readonly description?: string }
}

/** Code mode's tool (main/core/tools/code): its card shows the program and its inner calls. */
export const RUN_CODE = 'run_code'

export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
}

export interface FileSummary {
  readonly path: string
  readonly status: string
  readonly additions: number
  readonly deletions: number
}

interface Base {
  /** Stable across projections: what React keys rows by. */
  readonly key: string
  /** The event the item starts at: what "select" and "fork from here" refer to. */
  readonly seq: number
  readonly turn: number
  /** The last seq that changed the item. */
  readonly rev: number
}

export type ChatItem =
  | (Base & {
      readonly kind: 'user'
      readonly text: string
      /** Files and images sent with it, as logged (absent when none). */
      readonly attachments?: readonly Attachment[]
    })
  /**
   * What the harness, not the user, put in the conversation: volatile context (date, git
   * status), or a notice to the model about its own last reply (it was cut off).
   */
  | (Base & {
      readonly kind: 'context'
      readonly purpose: 'context' | 'notice'
      readonly text: string
    })
  | (Base & {
      readonly kind: 'assistant'
      readonly step: number
      readonly text: string
      readonly reasoning: string
      readonly isInterrupted: boolean
      readonly finish: string
    })
  | (Base & { readonly kind: 'tool'; readonly call: ToolCallView })
  | (Base & { readonly kind: 'changes'; readonly files: readonly FileSummary[] })
  | (Base & {
      readonly kind: 'deliverable'
      readonly paths: readonly string[]
      readonly note?: string
    })
  | (Base & {
      readonly kind: 'error'
      readonly scope: string
      readonly code: string
      readonly message: string
      /** A step error the loop retries after: a notice, not a failure. */
      readonly isRetry: boolean
    })
  /** Something the user should know that is not a failure (a reply cut at the output limit). */
  | (Base & {
      readonly kind: 'notice'
      readonly level: 'info' | 'warning'
      readonly code: string
      readonly message: string
    })
  | (Base & {
      readonly kind: 'turn-end'
      readonly reason: string
      readonly usage: Usage
      readonly durationMs?: number
      /** The turn logged an `error` event, whose row already says what failed. */
      readonly hasErrorRow: boolean
    })
  | (Base & {
      readonly kind: 'recovered'
      readonly cause: string
      readonly repairs: readonly { readonly seq: number; readonly what: string }[]
    })
  | (Base & {
      readonly kind: 'checkpoint'
      readonly fromSeq: number
      readonly toSeq: number
      readonly tokensBefore: number
      readonly tokensAfter: number
      readonly isUndone: boolean
    })
  /**
   * Files put back to a point (`workspace/restored`) or a restore undone
   * (`workspace/restore-undone`): what was written, removed and left alone.
   */
  | (Base & {
      readonly kind: 'restore'
      readonly action: 'restored' | 'undone'
      /** The event restored to (`restored`), or the restore's seq (`undone`). */
      readonly pointSeq: number
      readonly written: readonly string[]
      readonly removed: readonly string[]
      readonly skipped: readonly { readonly path: string; readonly reason: string }[]
      /** Changed outside Bridle and overwritten (the user went ahead). */
      readonly drifted: readonly string[]
      /** Why an undo happened: the user asked, or the restore failed midway and put back its work. */
      readonly cause?: 'user' | 'failed'
      /** The session's last restore, not undone, with no turn since: "Undo restore" can run. */
      readonly canUndo: boolean
      readonly isUndone: boolean
    })
  | (Base & {
      readonly kind: 'streaming'
      readonly step: number
      readonly text: string
      readonly reasoning: string
    })

export type ChatItemKind = ChatItem['kind']

/** The live step as an item, or undefined when nothing streams. */
export function streamingItem(deltas: readonly StreamDelta[]): ChatItem | undefined {
  const first = deltas[0]
  if (!first) return undefined
  let text = ''
  let reasoning = ''
  for (const delta of deltas) {
    if (delta.kind === 'text') text += delta.text
    else if (delta.kind === 'reasoning') reasoning += delta.text
    else {
      // The template opened a think block: what showed as the answer was reasoning.
      reasoning += text
      text = ''
    }
  }
  return {
    kind: 'streaming',
    key: `stream-${first.turn}-${first.step}`,
    seq: -1,
    rev: -1,
    turn: first.turn,
    step: first.step,
    text,
    reasoning,
  }
}

/**
 * `next` with every item whose key and rev match one of `previous` replaced by that earlier
 * object, so React's memo sees the same item until its events change.
 */
export function stabilizeItems(
  previous: readonly ChatItem[],
  next: readonly ChatItem[],
): readonly ChatItem[] {
  if (previous.length === 0) return next
  const byKey = new Map<string, ChatItem>()
  for (const item of previous) byKey.set(item.key, item)
  let isSame = previous.length === next.length
  const out = next.map((item, index) => {
    const old = byKey.get(item.key)
    const kept = old && old.rev === item.rev && item.kind !== 'streaming' ? old : item
    if (kept !== previous[index]) isSame = false
    return kept
  })
  return isSame ? previous : out
}

/**
 * The index of the item that holds `seq`: the last one starting at or before it, and of items
 * starting at the same event (a message and the calls it made), the first: the message.
 */
export function itemIndexForSeq(items: readonly ChatItem[], seq: number): number | undefined {
  let found: number | undefined
  let foundSeq = -1
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (!item || item.seq < 0) continue
    if (item.seq > seq) break
    if (item.seq !== foundSeq) {
      found = i
      foundSeq = item.seq
    }
  }
  return found
}

/** The latest request's prompt estimate in tokens (what the context meter shows), if any. */
export function latestPromptTokens(events: readonly EventDto[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event?.type !== 'request/start') continue
    const tokens = event.data.estimate?.tokens
    if (tokens !== undefined) return tokens
  }
  return undefined
}

/**
 * The `CONTEXT_TRUNCATED_BY_SERVER` error of the latest turn (what the banner shows), if any. Only
 * that turn is looked at: a cut of an earlier turn has been compacted away since, and a long
 * history is not walked on every page it loads.
 */
export function latestServerCut(
  events: readonly EventDto[],
): { readonly seq: number; readonly message: string } | undefined {
  let lastTurn = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event === undefined || event.turn === 0) continue
    if (lastTurn === 0) lastTurn = event.turn
    if (event.turn < lastTurn) return undefined
    if (event.type === 'error' && event.data.code === CONTEXT_TRUNCATED_BY_SERVER) {
      return { seq: event.seq, message: event.data.message }
    }
  }
  return undefined
}
