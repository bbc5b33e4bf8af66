/**
 * Codex CLI rollouts: JSON Lines at `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.
 * Every line is `{ timestamp, type, payload }`. Line 1 is `session_meta` (`id`, `cwd`,
 * `cli_version`, the base instructions). The conversation is in the `response_item` lines, the
 * OpenAI Responses API items as sent and received: `message` (roles `user`, `assistant`,
 * `developer`), `reasoning` (its summary; encrypted content cannot be carried), `function_call`
 * and `function_call_output`, `custom_tool_call` and its output, `local_shell_call`. Items of one
 * reply come one per line, so consecutive assistant items are joined back into one reply.
 * `event_msg` lines (the UI's copies of those items, token counts), `turn_context`,
 * `world_state` and `token_usage_record` are counted and left out. Developer messages and
 * Codex's own environment context are Codex's instructions, not the conversation: notes.
 * The format: files written by codex-cli 0.171.0 (test/fixtures/import/README.md).
 */
import type { AssistantBlock } from '../../../../protocol/events.js'
import { Chain, excerpt, isRecord, str, textOf, timeOf } from '../transcript.js'
import { firstAndRest } from './records.js'
import type { SourceFormat } from './records.js'

/** User-role text Codex writes itself before the user's words. */
const CODEX_CONTEXT =
  /^\s*<(environment_context|user_instructions|permissions instructions)>|^\s*# AGENTS\.md instructions/

interface Reply {
  blocks: AssistantBlock[]
  notes: string[]
  at?: number
}

export const codexFormat: SourceFormat = {
  source: 'codex',
  label: 'Codex CLI',
  folder: ['.codex', 'sessions'],
  isSessionFile: (relative) => /^\d{4}\/\d{2}\/\d{2}\/rollout-[^/]+\.jsonl$/.test(relative),
  matches(head) {
    const first = head[0]?.value
    return isRecord(first) && first.type === 'session_meta' && isRecord(first.payload)
  },
  describe(head) {
    const meta = head[0]?.value
    const payload = isRecord(meta) && isRecord(meta.payload) ? meta.payload : {}
    const prompt = head
      .map((r) => (isRecord(r.value) && isRecord(r.value.payload) ? r.value.payload : undefined))
      .find(
        (p) => p?.type === 'message' && p.role === 'user' && !CODEX_CONTEXT.test(textOf(p.content)),
      )
    const title = prompt ? textOf(prompt.content) : undefined
    return {
      ...(typeof payload.id === 'string' ? { sourceSessionId: payload.id } : {}),
      ...(typeof payload.cwd === 'string' ? { projectDir: payload.cwd } : {}),
      ...(title ? { title } : {}),
    }
  },
  read(records) {
    const [first, rest] = firstAndRest(records)
    const chain = new Chain()
    const meta = isRecord(first?.value) ? first.value : {}
    const payload = isRecord(meta.payload) ? meta.payload : {}
    let model: string | undefined
    let reply: Reply | undefined
    const flush = () => {
      if (!reply) return
      chain.add(
        {
          kind: 'assistant',
          blocks: reply.blocks,
          notes: reply.notes,
          ...(model ? { model } : {}),
        },
        reply.at,
      )
      reply = undefined
    }
    const replyAt = (at: number | undefined): Reply =>
      (reply ??= { blocks: [], notes: [], ...(at === undefined ? {} : { at }) })
    for (const record of rest) {
      const line = record.value
      if (!isRecord(line)) {
        flush()
        chain.note(`Line ${record.line} is not JSON: ${excerpt(record.text)}`)
        continue
      }
      const type = str(line.type) ?? '(no type)'
      const item = isRecord(line.payload) ? line.payload : {}
      if (type === 'turn_context' && typeof item.model === 'string') model = item.model
      if (type !== 'response_item') {
        chain.skip(type === 'event_msg' ? `event_msg (${str(item.type) ?? '?'})` : type)
        continue
      }
      const at = timeOf(line.timestamp)
      const itemType = str(item.type) ?? '(no type)'
      switch (itemType) {
        case 'message': {
          const text = textOf(item.content)
          if (item.role === 'assistant') {
            replyAt(at).blocks.push({ type: 'text', text })
            break
          }
          flush()
          if (item.role === 'user' && !CODEX_CONTEXT.test(text))
            chain.add({ kind: 'user', role: 'input', text }, at)
          else
            chain.note(
              `Codex's ${str(item.role) ?? 'unknown'}-role instructions to its model: ${excerpt(text)}`,
              at,
            )
          break
        }
        case 'reasoning': {
          const summary = Array.isArray(item.summary) ? textOf(item.summary) : ''
          const content = Array.isArray(item.content) ? textOf(item.content) : ''
          const text = [summary, content].filter(Boolean).join('\n')
          if (text) replyAt(at).blocks.push({ type: 'reasoning', text })
          if (typeof item.encrypted_content === 'string')
            replyAt(at).notes.push(
              'Encrypted reasoning, which only OpenAI can read, was not carried over.',
            )
          break
        }
        case 'function_call':
          replyAt(at).blocks.push({
            type: 'tool-call',
            callId: str(item.call_id) ?? `line-${record.line}`,
            name: str(item.name) ?? 'unknown',
            args: str(item.arguments) ?? '{}',
          })
          break
        case 'custom_tool_call':
          replyAt(at).blocks.push({
            type: 'tool-call',
            callId: str(item.call_id) ?? `line-${record.line}`,
            name: str(item.name) ?? 'unknown',
            args: JSON.stringify({ input: str(item.input) ?? '' }),
          })
          break
        case 'local_shell_call':
          replyAt(at).blocks.push({
            type: 'tool-call',
            callId: str(item.call_id) ?? str(item.id) ?? `line-${record.line}`,
            name: 'local_shell',
            args: JSON.stringify(item.action ?? {}),
          })
          break
        case 'function_call_output':
        case 'custom_tool_call_output': {
          flush()
          const output = item.output
          const text = isRecord(output) ? textOf(output.content) : textOf(output)
          chain.add(
            {
              kind: 'result',
              callId: str(item.call_id) ?? '',
              output: text,
              isError: isRecord(output) && output.success === false,
            },
            at,
          )
          break
        }
        default:
          flush()
          chain.note(`A Codex ${itemType} item: ${excerpt(item)}`, at)
      }
    }
    flush()
    return {
      source: 'codex',
      ...(typeof payload.id === 'string' ? { sourceSessionId: payload.id } : {}),
      ...(typeof payload.cli_version === 'string' ? { sourceVersion: payload.cli_version } : {}),
      ...(typeof payload.cwd === 'string' ? { recordedProjectDir: payload.cwd } : {}),
      nodes: chain.nodes,
      skipped: chain.skipped,
    }
  },
}
