/**
 * One line per event for the inspector's table and the checkpoints' originals. The renderer
 * cannot import main/, and `EventDto.data` arrives as an untyped record, so this reads each
 * field defensively: a payload of an unexpected shape yields a shorter line, never a throw.
 */
import type { EventDto } from '../../../../protocol/contract'
import { decidedBy, decisionText } from '../chat/approval-words'

type Data = Readonly<Record<string, unknown>>

const text = (data: Data, key: string): string => {
  const value = data[key]
  return typeof value === 'string' ? value : ''
}
const count = (data: Data, key: string): number => {
  const value = data[key]
  return Array.isArray(value) ? value.length : 0
}
const records = (value: unknown): Data[] =>
  Array.isArray(value)
    ? value.filter((item): item is Data => typeof item === 'object' && item !== null)
    : []
const record = (value: unknown): Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : {}

/** Collapses whitespace and cuts at `max` characters with an ellipsis. */
export function clip(value: string, max = 80): string {
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function summarizeAssistant(data: Data): string {
  const blocks = records(data['blocks'])
  const said = blocks
    .filter((b) => b['type'] === 'text')
    .map((b) => text(b, 'text'))
    .join(' ')
  const calls = blocks.filter((b) => b['type'] === 'tool-call').map((b) => text(b, 'name'))
  const usage = record(data['usage'])
  const input = usage['inputTokens']
  const output = usage['outputTokens']
  const tokens =
    typeof input === 'number'
      ? `, ${input} in${typeof output === 'number' ? ` / ${output} out` : ''}`
      : ''
  const parts = [said ? clip(said, 60) : '', calls.length > 0 ? `calls ${calls.join(', ')}` : '']
  const body = parts.filter(Boolean).join(' · ') || '(empty)'
  return `${body} [${text(data, 'finish')}${data['interrupted'] === true ? ', interrupted' : ''}${tokens}]`
}

function summarizeToolResult(data: Data): string {
  const callId = text(data, 'callId')
  if (data['ok'] === true) return `${callId} ok: ${clip(text(data, 'output'), 60)}`
  const error = record(data['error'])
  return `${callId} ${text(error, 'code')}: ${clip(text(error, 'message'), 50)}`
}

/** `c1 allowed by rule bash: npm test *`, `c2 refused: <reason>`: the call and who decided it. */
function summarizeDecision(data: Data): string {
  const decision = text(data, 'decision')
  const optional = (key: string) => (typeof data[key] === 'string' ? text(data, key) : undefined)
  const said =
    decision === 'allow' || decision === 'deny' || decision === 'cancelled'
      ? decisionText({
          decision,
          by: decidedBy(data['by']),
          detail: optional('detail'),
          reason: optional('reason'),
          remember: data['remember'] === true,
          grant: optional('grant'),
        })
      : decision
  return [text(data, 'callId'), clip(said, 100)].filter((part) => part !== '').join(' ')
}

/** What an event is about, in one line (empty for bare markers like `turn/start`). */
export function summarizeEvent(event: Pick<EventDto, 'type' | 'data'>): string {
  const { data } = event
  switch (event.type) {
    case 'session/created': {
      const model = text(data, 'model')
      return `project ${text(data, 'projectDir')}${model ? `, model ${model}` : ''}`
    }
    case 'session/title':
      return clip(text(data, 'title'))
    case 'inbox/queued':
      return `${text(data, 'requestId')}: ${clip(text(data, 'message'), 60)}`
    case 'inbox/claimed':
      return Array.isArray(data['requestIds']) ? data['requestIds'].join(', ') : ''
    case 'turn/end':
    case 'step/end':
      return text(data, 'reason')
    case 'user/message': {
      const kind = text(data, 'kind')
      const label = kind === 'context' || kind === 'notice' ? `(${kind}) ` : ''
      return `${label}${clip(text(data, 'content'))}`
    }
    case 'request/header':
      return `${text(data, 'reason')}: ${count(data, 'sections')} section(s), ${count(data, 'tools')} tool(s)`
    case 'request/start': {
      const estimate = record(data['estimate'])
      const tokens = estimate['tokens']
      return `${text(data, 'provider')} ${text(data, 'model')}${typeof tokens === 'number' ? `, ~${tokens} tokens` : ''}`
    }
    case 'assistant/chunk':
      return `${count(data, 'deltas')} delta(s)`
    case 'assistant/message':
      return summarizeAssistant(data)
    case 'tool/call':
      return `${text(data, 'name')} ${text(data, 'callId')} ${clip(JSON.stringify(data['args'] ?? null), 50)}`
    case 'tool/result':
      return summarizeToolResult(data)
    case 'approval/requested': {
      const warnings = count(data, 'warnings')
      const flagged = warnings === 0 ? '' : ` [${warnings} warning${warnings === 1 ? '' : 's'}]`
      return `${text(data, 'callId')} ${text(data, 'tool')}: ${clip(text(data, 'description'), 60)}${flagged}`
    }
    case 'approval/decided':
      return summarizeDecision(data)
    case 'process/started': {
      const sandboxed = data['sandboxed']
      const where =
        sandboxed === true ? ', sandboxed' : sandboxed === false ? ', not sandboxed' : ''
      return `${text(data, 'callId')} started, pid ${String(data['pid'])}${where}`
    }
    case 'compaction/checkpoint':
      return `replaces ${String(data['fromSeq'])}..${String(data['toSeq'])}, ${String(data['tokensBefore'])} → ${String(data['tokensAfter'])} tokens`
    case 'compaction/pruned':
      return `prunes ${count(data, 'seqs')} tool output(s) from view`
    case 'compaction/undone':
      return `undoes checkpoint ${String(data['checkpointSeq'])}`
    case 'workspace/diff':
      return `${count(data, 'files')} file(s) changed`
    case 'deliverable/present':
      return Array.isArray(data['paths']) ? data['paths'].join(', ') : ''
    case 'recovery/repaired':
      return `${text(data, 'cause')}: ${count(data, 'items')} synthetic event(s)`
    case 'error':
      return `${text(data, 'scope')} ${text(data, 'code')}: ${clip(text(data, 'message'), 60)}`
    case 'notice':
      return `${text(data, 'level')} ${text(data, 'code')}: ${clip(text(data, 'message'), 60)}`
    default:
      return ''
  }
}
