/**
 * pi (badlogic/pi-mono, `@mariozechner/pi-coding-agent`) sessions: JSON Lines under
 * `~/.pi/agent/sessions/--<folder>--/<time>_<uuid>.jsonl`. Line 1 is the header
 * `{ type: 'session', version, id, timestamp, cwd }`; every other line is an entry with `id` and
 * `parentId`, so a file is a tree: the path to the last entry is what pi resumes, and every
 * other branch becomes a Bridle fork. Entries: `message` (roles `user`, `assistant`,
 * `toolResult`, `bashExecution`, `custom`, `branchSummary`, `compactionSummary`),
 * `custom_message`, `branch_summary`, `compaction`, `session_info`, and settings entries
 * (`model_change`, `thinking_level_change`, `label`, `custom`) that carry nothing to import.
 * The format: the package's docs/session-format.md (pi 0.73).
 */
import type { AssistantBlock } from '../../../../protocol/events.js'
import type { Item, TranscriptNode } from '../transcript.js'
import { excerpt, isRecord, str, textOf, timeOf } from '../transcript.js'
import { firstAndRest } from './records.js'
import type { SourceFormat, SourceRecord } from './records.js'

const SETTINGS = new Set(['model_change', 'thinking_level_change', 'label', 'custom'])

const isHeader = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) &&
  value.type === 'session' &&
  typeof value.id === 'string' &&
  // A DeepSeek Harness header has the same three fields and a `createdAt`; pi's never does.
  !('createdAt' in value)

export const piFormat: SourceFormat = {
  source: 'pi',
  label: 'pi',
  folder: ['.pi', 'agent', 'sessions'],
  isSessionFile: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
  matches: (head) => isHeader(head[0]?.value),
  describe(head) {
    const header = head[0]?.value
    const first = head.find(
      (r) => isRecord(r.value) && isRecord(r.value.message) && r.value.message.role === 'user',
    )
    const message = isRecord(first?.value) ? first.value.message : undefined
    const name = head.findLast((r) => isRecord(r.value) && r.value.type === 'session_info')
    const title =
      (isRecord(name?.value) ? str(name.value.name) : undefined) ??
      (isRecord(message) ? textOf(message.content) : undefined)
    return {
      ...(isRecord(header) && typeof header.id === 'string' ? { sourceSessionId: header.id } : {}),
      ...(isRecord(header) && typeof header.cwd === 'string' ? { projectDir: header.cwd } : {}),
      ...(title ? { title } : {}),
    }
  },
  read(records) {
    const [first, rest] = firstAndRest(records)
    const header = first?.value
    if (!isHeader(header)) throw new Error('a pi session starts with its session header')
    const nodes: TranscriptNode[] = []
    const skipped = new Map<string, number>()
    let title: string | undefined
    let previous: string | null = null
    for (const record of rest) {
      const entry = record.value
      if (!isRecord(entry) || typeof entry.id !== 'string') {
        // Not an entry of the tree: kept as a note after the entry before it.
        const id = `line-${record.line}`
        nodes.push({ id, parentId: previous, item: noteOf(record) })
        previous = id
        continue
      }
      const parentId = typeof entry.parentId === 'string' ? entry.parentId : null
      const at = timeOf(entry.timestamp)
      const type = str(entry.type) ?? '(no type)'
      let item: Item | undefined
      if (type === 'message' && isRecord(entry.message)) item = messageItem(entry.message)
      else if (type === 'custom_message')
        item = { kind: 'user', role: 'context', text: textOf(entry.content) }
      else if (type === 'branch_summary')
        item = {
          kind: 'user',
          role: 'context',
          text: `Summary of another branch: ${str(entry.summary) ?? ''}`,
        }
      else if (type === 'compaction')
        item = {
          kind: 'note',
          text: `pi compacted the conversation here (the whole history is imported): ${excerpt(entry.summary)}`,
        }
      else if (type === 'session_info') {
        title = str(entry.name) ?? title
        skipped.set(type, (skipped.get(type) ?? 0) + 1)
      } else if (SETTINGS.has(type)) skipped.set(type, (skipped.get(type) ?? 0) + 1)
      else item = { kind: 'note', text: `A pi ${type} entry: ${excerpt(entry)}` }
      nodes.push({
        id: entry.id,
        parentId,
        ...(at === undefined ? {} : { at }),
        ...(item ? { item } : {}),
      })
      previous = entry.id
    }
    const version =
      typeof header.version === 'number' ? `session format ${header.version}` : undefined
    return {
      source: 'pi',
      ...(typeof header.id === 'string' ? { sourceSessionId: header.id } : {}),
      ...(version ? { sourceVersion: version } : {}),
      ...(typeof header.cwd === 'string' ? { recordedProjectDir: header.cwd } : {}),
      ...(title ? { title } : {}),
      nodes,
      skipped,
    }
  },
}

function noteOf(record: SourceRecord): Item {
  return { kind: 'note', text: `Line ${record.line} is not a pi entry: ${excerpt(record.text)}` }
}

function messageItem(message: Record<string, unknown>): Item {
  switch (message.role) {
    case 'user':
      return { kind: 'user', role: 'input', text: textOf(message.content) }
    case 'assistant': {
      const blocks: AssistantBlock[] = []
      const dropped: string[] = []
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!isRecord(block)) continue
        if (block.type === 'text' && typeof block.text === 'string')
          blocks.push({ type: 'text', text: block.text })
        else if (block.type === 'thinking' && typeof block.thinking === 'string')
          blocks.push({ type: 'reasoning', text: block.thinking })
        else if (
          block.type === 'toolCall' &&
          typeof block.id === 'string' &&
          typeof block.name === 'string'
        )
          blocks.push({
            type: 'tool-call',
            callId: block.id,
            name: block.name,
            args: JSON.stringify(block.arguments ?? {}),
          })
        else dropped.push(excerpt(block))
      }
      if (typeof message.errorMessage === 'string')
        dropped.push(
          `the reply ended with ${str(message.stopReason) ?? 'an error'}: ${message.errorMessage}`,
        )
      const usage = isRecord(message.usage) ? message.usage : {}
      return {
        kind: 'assistant',
        blocks,
        notes: dropped,
        ...(typeof message.model === 'string' ? { model: message.model } : {}),
        usage: {
          ...(typeof usage.input === 'number' ? { inputTokens: usage.input } : {}),
          ...(typeof usage.output === 'number' ? { outputTokens: usage.output } : {}),
        },
      }
    }
    case 'toolResult':
      return {
        kind: 'result',
        callId: str(message.toolCallId) ?? '',
        output: textOf(message.content),
        isError: message.isError === true,
      }
    case 'bashExecution':
      return {
        kind: 'user',
        role: 'context',
        text: `The user ran \`${str(message.command) ?? ''}\` (exit ${typeof message.exitCode === 'number' ? String(message.exitCode) : 'unknown'}):\n${str(message.output) ?? ''}`,
      }
    case 'custom':
    case 'branchSummary':
    case 'compactionSummary':
      return {
        kind: 'user',
        role: 'context',
        text: str(message.summary) ?? textOf(message.content),
      }
    default:
      return { kind: 'note', text: `A pi message Bridle cannot carry: ${excerpt(message)}` }
  }
}
