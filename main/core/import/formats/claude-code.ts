/**
 * Claude Code session logs: JSON Lines under `~/.claude/projects/<folder as dashes>/<uuid>.jsonl`.
 * Each conversation entry has `type` `user` or `assistant`, a `uuid`, its `parentUuid`, the
 * `sessionId`, `cwd`, `version`, and an Anthropic Messages API `message`. One reply is written as
 * several `assistant` entries, one per content block, sharing `message.id`: they are joined back
 * into one reply. Tool results come as `tool_result` blocks of a `user` entry. Entries of a
 * subagent (`isSidechain`) and bookkeeping entries (`queue-operation`, `attachment`,
 * `last-prompt`, `mode`, `file-history-snapshot`, `summary`, `system`, ...) are counted and left
 * out. The format: files written by Claude Code 2.1.197 (test/fixtures/import/README.md).
 */
import type { AssistantBlock } from '../../../../protocol/events.js'
import { Chain, excerpt, isRecord, str, textOf, timeOf } from '../transcript.js'
import type { Transcript } from '../transcript.js'
import type { SourceFormat } from './records.js'

const BOOKKEEPING = new Set([
  'queue-operation',
  'attachment',
  'last-prompt',
  'mode',
  'file-history-snapshot',
  'summary',
  'custom-title',
  'system',
  'progress',
])

type Entry = Record<string, unknown> & { type: string; message: Record<string, unknown> }

const isEntry = (value: unknown): value is Entry =>
  isRecord(value) &&
  (value.type === 'user' || value.type === 'assistant') &&
  isRecord(value.message)

export const claudeCodeFormat: SourceFormat = {
  source: 'claude-code',
  label: 'Claude Code',
  folder: ['.claude', 'projects'],
  isSessionFile: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
  matches(head) {
    const first = head[0]?.value
    const type = isRecord(first) ? first.type : undefined
    if (typeof type !== 'string') return false
    if (!isEntry(first) && !BOOKKEEPING.has(type)) return false
    return head.some(
      (r) =>
        isEntry(r.value) &&
        typeof r.value.uuid === 'string' &&
        typeof r.value.sessionId === 'string',
    )
  },
  describe(head) {
    const entry = head.find((r) => isEntry(r.value))?.value
    const prompt = head.find(
      (r) =>
        isEntry(r.value) && r.value.type === 'user' && typeof r.value.message.content === 'string',
    )?.value
    const title = isEntry(prompt) ? textOf(prompt.message.content) : undefined
    return {
      ...(isRecord(entry) && typeof entry.sessionId === 'string'
        ? { sourceSessionId: entry.sessionId }
        : {}),
      ...(isRecord(entry) && typeof entry.cwd === 'string' ? { projectDir: entry.cwd } : {}),
      ...(title ? { title } : {}),
    }
  },
  read(records) {
    const chain = new Chain()
    let session: Record<string, unknown> | undefined
    /** The reply being joined: its `message.id` and blocks so far. */
    let reply:
      | {
          id: string
          blocks: AssistantBlock[]
          notes: string[]
          model?: string
          at?: number
          usage?: Record<string, unknown>
        }
      | undefined
    const flush = () => {
      if (!reply) return
      chain.add(
        {
          kind: 'assistant',
          blocks: reply.blocks,
          notes: reply.notes,
          ...(reply.model === undefined ? {} : { model: reply.model }),
          usage: {
            ...(typeof reply.usage?.input_tokens === 'number'
              ? { inputTokens: reply.usage.input_tokens }
              : {}),
            ...(typeof reply.usage?.output_tokens === 'number'
              ? { outputTokens: reply.usage.output_tokens }
              : {}),
          },
        },
        reply.at,
      )
      reply = undefined
    }
    for (const record of records) {
      const entry = record.value
      if (!isRecord(entry)) {
        flush()
        chain.note(`Line ${record.line} is not JSON: ${excerpt(record.text)}`)
        continue
      }
      const type = str(entry.type) ?? '(no type)'
      if (!isEntry(entry)) {
        chain.skip(type)
        continue
      }
      if (entry.isSidechain === true) {
        chain.skip('subagent (sidechain) entry')
        continue
      }
      session ??= entry
      const at = timeOf(entry.timestamp)
      const message = entry.message
      if (type === 'assistant') {
        const id = str(message.id) ?? `line-${record.line}`
        if (reply?.id !== id) {
          flush()
          reply = {
            id,
            blocks: [],
            notes: [],
            ...(typeof message.model === 'string' ? { model: message.model } : {}),
            ...(at === undefined ? {} : { at }),
            ...(isRecord(message.usage) ? { usage: message.usage } : {}),
          }
        }
        addAssistantBlocks(reply, message.content)
        continue
      }
      flush()
      readUserEntry(chain, entry, message, at)
    }
    flush()
    return transcriptOf(chain, session)
  },
}

function addAssistantBlocks(
  reply: { blocks: AssistantBlock[]; notes: string[] },
  content: unknown,
): void {
  if (typeof content === 'string') {
    reply.blocks.push({ type: 'text', text: content })
    return
  }
  for (const block of Array.isArray(content) ? content : []) {
    if (!isRecord(block)) continue
    if (block.type === 'text' && typeof block.text === 'string')
      reply.blocks.push({ type: 'text', text: block.text })
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      reply.blocks.push({
        type: 'reasoning',
        text: block.thinking,
        ...(typeof block.signature === 'string' && block.signature
          ? { signature: block.signature }
          : {}),
      })
    else if (
      block.type === 'tool_use' &&
      typeof block.id === 'string' &&
      typeof block.name === 'string'
    )
      reply.blocks.push({
        type: 'tool-call',
        callId: block.id,
        name: block.name,
        args: JSON.stringify(block.input ?? {}),
      })
    else
      reply.notes.push(
        `A ${str(block.type) ?? 'content'} block of a Claude Code reply: ${excerpt(block)}`,
      )
  }
}

function readUserEntry(
  chain: Chain,
  entry: Record<string, unknown>,
  message: Record<string, unknown>,
  at: number | undefined,
): void {
  // Text Claude Code adds itself (a compaction summary, a command's output) is context.
  const role = entry.isMeta === true || entry.isCompactSummary === true ? 'context' : 'input'
  if (typeof message.content === 'string') {
    chain.add({ kind: 'user', role, text: message.content }, at)
    return
  }
  const words: string[] = []
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (!isRecord(block)) continue
    if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      chain.add(
        {
          kind: 'result',
          callId: block.tool_use_id,
          output: textOf(block.content),
          isError: block.is_error === true,
        },
        at,
      )
    } else if (block.type === 'text' && typeof block.text === 'string') words.push(block.text)
    else
      chain.note(
        `A ${str(block.type) ?? 'content'} block of a Claude Code message: ${excerpt(block)}`,
        at,
      )
  }
  if (words.length > 0) chain.add({ kind: 'user', role, text: words.join('\n') }, at)
}

function transcriptOf(chain: Chain, session: Record<string, unknown> | undefined): Transcript {
  return {
    source: 'claude-code',
    ...(typeof session?.sessionId === 'string' ? { sourceSessionId: session.sessionId } : {}),
    ...(typeof session?.version === 'string' ? { sourceVersion: session.version } : {}),
    ...(typeof session?.cwd === 'string' ? { recordedProjectDir: session.cwd } : {}),
    nodes: chain.nodes,
    skipped: chain.skipped,
  }
}
