/**
 * DeepSeek Harness session logs (deepseek-ai/deepseek-harness, its JSONL persistence backend):
 * one file per session under `<root>/cwd-<hash>/<id>.jsonl`. Line 1 is the header
 * `{ type: 'session', version, id, createdAt, cwd?, parentSession?, delegationDepth }`; every
 * other line is one `SessionEvent` `{ type, seq, time, data, surfaceOp?, sourceEventSeqs? }`.
 * The conversation is in `user/message`, `steering/message`, `assistant/message` (a `message`
 * whose content blocks are `text`, `reasoning`, `image` and `tool-call` with `arguments` as JSON
 * text) and `tool/result` (one `tool-result` block). The turn and step markers, `tool/call`
 * (its call is in the reply), `assistant/chunk` and the request records are the log's
 * structure: counted and left out. Anything else (`todo/write`, `compact/*`, `approval/*`, ...)
 * is kept as a note. A compressed log (`.jsonl.zstd`, the backend's default) must be
 * decompressed first. The format: test/fixtures/import/README.md cites the source files.
 */
import type { AssistantBlock } from '../../../../protocol/events.js'
import { Chain, excerpt, isRecord, str, textOf, timeOf } from '../transcript.js'
import { firstAndRest } from './records.js'
import type { SourceFormat } from './records.js'

const STRUCTURE = new Set([
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'tool/call',
  'assistant/chunk',
  'request/header',
  'request/context',
  'session/end-seed',
])

const isHeader = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) &&
  value.type === 'session' &&
  typeof value.id === 'string' &&
  typeof value.createdAt === 'number'

/** The blocks of a message's content: text, and a note for each block that is not text. */
function contentText(content: unknown, notes: string[]): string {
  if (!Array.isArray(content)) return textOf(content)
  const words: string[] = []
  for (const block of content) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string')
      words.push(block.text)
    else
      notes.push(
        `A ${isRecord(block) ? (str(block.type) ?? 'content') : 'content'} block: ${excerpt(block)}`,
      )
  }
  return words.join('\n')
}

export const deepseekHarnessFormat: SourceFormat = {
  source: 'deepseek-harness',
  label: 'DeepSeek Harness',
  // The JSONL backend has no default root (its README); `~/.dsh/sessions` is the root a
  // DeepSeek Harness fork's session service falls back to. Any other root: import the file itself.
  folder: ['.dsh', 'sessions'],
  isSessionFile: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
  matches: (head) => isHeader(head[0]?.value),
  describe(head) {
    const header = head[0]?.value
    const prompt = head.find(
      (r) => isRecord(r.value) && r.value.type === 'user/message' && isRecord(r.value.data),
    )?.value
    const title =
      isRecord(prompt) && isRecord(prompt.data) ? contentText(prompt.data.content, []) : undefined
    return {
      ...(isHeader(header) ? { sourceSessionId: String(header.id) } : {}),
      ...(isHeader(header) && typeof header.cwd === 'string' ? { projectDir: header.cwd } : {}),
      ...(title ? { title } : {}),
    }
  },
  read(records) {
    const [first, rest] = firstAndRest(records)
    const header = first?.value
    if (!isHeader(header)) throw new Error('a DeepSeek Harness log starts with its session header')
    const chain = new Chain()
    for (const record of rest) {
      const event = record.value
      if (!isRecord(event) || typeof event.type !== 'string') {
        chain.note(`Line ${record.line} is not an event: ${excerpt(record.text)}`)
        continue
      }
      const at = timeOf(event.time)
      const data = isRecord(event.data) ? event.data : {}
      const notes: string[] = []
      switch (event.type) {
        case 'user/message':
        case 'steering/message': {
          const message =
            event.type === 'user/message' ? data : isRecord(data.message) ? data.message : {}
          const text = contentText(message.content, notes)
          const source = isRecord(message.source) ? message.source : {}
          if (isRecord(event.surfaceOp)) {
            chain.note(
              `A DeepSeek Harness compaction summary (the whole history is imported): ${excerpt(text)}`,
              at,
            )
          } else if (text) {
            const role =
              event.type === 'steering/message' || source.kind === 'user' ? 'input' : 'context'
            chain.add({ kind: 'user', role, text }, at)
          }
          for (const note of notes) chain.note(note, at)
          break
        }
        case 'assistant/message': {
          const message = isRecord(data.message) ? data.message : {}
          const source = isRecord(message.source) ? message.source : {}
          const usage = isRecord(data.usage) ? data.usage : {}
          const blocks: AssistantBlock[] = []
          for (const block of Array.isArray(message.content) ? message.content : []) {
            if (!isRecord(block)) continue
            if (block.type === 'text' && typeof block.text === 'string')
              blocks.push({ type: 'text', text: block.text })
            else if (block.type === 'reasoning' && typeof block.text === 'string')
              blocks.push({ type: 'reasoning', text: block.text })
            else if (
              block.type === 'tool-call' &&
              typeof block.id === 'string' &&
              typeof block.name === 'string'
            )
              blocks.push({
                type: 'tool-call',
                callId: block.id,
                name: block.name,
                args: str(block.arguments) ?? JSON.stringify(block.arguments ?? {}),
              })
            else notes.push(`A ${str(block.type) ?? 'content'} block of a reply: ${excerpt(block)}`)
          }
          chain.add(
            {
              kind: 'assistant',
              blocks,
              notes,
              ...(typeof source.model === 'string' ? { model: source.model } : {}),
              usage: {
                ...(typeof usage.inputTokens === 'number'
                  ? { inputTokens: usage.inputTokens }
                  : {}),
                ...(typeof usage.outputTokens === 'number'
                  ? { outputTokens: usage.outputTokens }
                  : {}),
              },
            },
            at,
          )
          break
        }
        case 'tool/result': {
          const message = isRecord(data.message) ? data.message : {}
          const block: unknown = Array.isArray(message.content)
            ? (message.content as unknown[])[0]
            : undefined
          if (!isRecord(block) || typeof block.toolCallId !== 'string') {
            chain.note(`A tool/result without its tool-result block: ${excerpt(data)}`, at)
            break
          }
          const output = contentText(block.content, notes)
          chain.add(
            { kind: 'result', callId: block.toolCallId, output, isError: block.isError === true },
            at,
          )
          for (const note of notes) chain.note(note, at)
          break
        }
        default:
          if (STRUCTURE.has(event.type)) chain.skip(event.type)
          else chain.note(`A DeepSeek Harness ${event.type} event: ${excerpt(data)}`, at)
      }
    }
    return {
      source: 'deepseek-harness',
      sourceSessionId: String(header.id),
      ...(typeof header.version === 'number'
        ? { sourceVersion: `session format ${header.version}` }
        : {}),
      ...(typeof header.cwd === 'string' ? { recordedProjectDir: header.cwd } : {}),
      nodes: chain.nodes,
      skipped: chain.skipped,
    }
  },
}
