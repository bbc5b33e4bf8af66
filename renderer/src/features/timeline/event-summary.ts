/**
 * One line per event for the inspector's table and the checkpoints' originals, read from the
 * typed event the bridge delivers (its payload was parsed with its type's schema).
 */
import type { EventDtoOf } from '../../../../protocol/contract'
import type { EventType } from '../../../../protocol/events'
import { assistantParts } from '../../state/event-selectors'
import { decisionText } from '../../state/approval-words'

type DataOf<T extends EventType> = EventDtoOf<T>['data']

/** What a summary reads of an event: its type and, paired with it, its payload. */
export type EventPayload = { [T in EventType]: Pick<EventDtoOf<T>, 'type' | 'data'> }[EventType]

/** Collapses whitespace and cuts at `max` characters with an ellipsis. */
export function clip(value: string, max = 80): string {
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function summarizeAssistant(data: DataOf<'assistant/message'>): string {
  const { text, calls } = assistantParts(data)
  const said = text.join(' ')
  const input = data.usage?.inputTokens
  const output = data.usage?.outputTokens
  const tokens =
    input !== undefined ? `, ${input} in${output !== undefined ? ` / ${output} out` : ''}` : ''
  const parts = [
    said ? clip(said, 60) : '',
    calls.length > 0 ? `calls ${calls.map((call) => call.name).join(', ')}` : '',
  ]
  const body = parts.filter(Boolean).join(' · ') || '(empty)'
  return `${body} [${data.finish}${data.interrupted === true ? ', interrupted' : ''}${tokens}]`
}

function summarizeToolResult(data: DataOf<'tool/result'>): string {
  if (data.ok) return `${data.callId} ok: ${clip(data.output, 60)}`
  return `${data.callId} ${data.error.code}: ${clip(data.error.message, 50)}`
}

/** `c1 allowed by rule bash: npm test *`, `c2 refused: <reason>`: the call and who decided it. */
function summarizeDecision(data: DataOf<'approval/decided'>): string {
  const said = decisionText({ ...data, remember: data.remember === true })
  return [data.callId, clip(said, 100)].filter((part) => part !== '').join(' ')
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`

/** What an event is about, in one line (empty for bare markers like `turn/start`). */
export function summarizeEvent(e: EventPayload): string {
  switch (e.type) {
    case 'session/created': {
      const { model, projectDir } = e.data
      return `project ${projectDir}${model ? `, model ${model}` : ''}`
    }
    case 'session/title':
      return clip(e.data.title)
    case 'session/spawned': {
      const { by, mode, depth, description } = e.data
      const seeded = mode === 'fork' ? ", seeded with the parent's history" : ''
      return `subagent (depth ${depth}${seeded}) of ${String(by.sessionId)}, call ${by.callId}: ${clip(description, 60)}`
    }
    case 'session/model':
      return `model switched to ${e.data.model}${e.data.endpointId ? ` on ${e.data.endpointId}` : ''}`
    case 'session/code-mode':
      return e.data.on ? 'code mode on' : 'code mode off'
    case 'inbox/queued':
      return `${e.data.requestId}: ${clip(e.data.message, 60)}`
    case 'inbox/claimed':
      return e.data.requestIds.join(', ')
    case 'turn/end':
    case 'step/end':
      return e.data.reason
    case 'user/message': {
      const { kind, content } = e.data
      const label = kind === 'context' || kind === 'notice' ? `(${kind}) ` : ''
      return `${label}${clip(content)}`
    }
    case 'request/header':
      return `${e.data.reason}: ${e.data.sections.length} section(s), ${e.data.tools.length} tool(s)`
    case 'request/start': {
      const tokens = e.data.estimate?.tokens
      return `${e.data.provider} ${e.data.model}${tokens !== undefined ? `, ~${tokens} tokens` : ''}`
    }
    case 'assistant/chunk':
      return `${e.data.deltas.length} delta(s)`
    case 'assistant/message':
      return summarizeAssistant(e.data)
    case 'tool/call':
      return `${e.data.name} ${e.data.callId} ${clip(JSON.stringify(e.data.args), 50)}`
    case 'tool/result':
      return summarizeToolResult(e.data)
    case 'approval/requested': {
      const warnings = e.data.warnings?.length ?? 0
      const flagged = warnings === 0 ? '' : ` [${plural(warnings, 'warning')}]`
      return `${e.data.callId} ${e.data.tool}: ${clip(e.data.description, 60)}${flagged}`
    }
    case 'approval/decided':
      return summarizeDecision(e.data)
    case 'process/started': {
      const { callId, pid, sandboxed } = e.data
      return `${callId} started, pid ${pid}${sandboxed ? ', sandboxed' : ', not sandboxed'}`
    }
    case 'subagent/started':
      return `${e.data.callId} started subagent ${String(e.data.sessionId)}: ${clip(e.data.description, 60)}`
    case 'compaction/checkpoint': {
      const { fromSeq, toSeq, tokensBefore, tokensAfter } = e.data
      return `replaces ${fromSeq}..${toSeq}, ${tokensBefore} → ${tokensAfter} tokens`
    }
    case 'compaction/pruned':
      return `prunes ${e.data.seqs.length} tool output(s) from view`
    case 'compaction/undone':
      return `undoes checkpoint ${e.data.checkpointSeq}`
    case 'workspace/diff':
      return `${e.data.files.length} file(s) changed`
    case 'workspace/restored':
      return `files put back to seq ${e.data.toSeq}: ${e.data.written.length} written, ${e.data.removed.length} removed`
    case 'workspace/restore-undone':
      return `undoes the restore at seq ${e.data.restoredSeq}`
    case 'deliverable/present':
      return e.data.paths.join(', ')
    case 'recovery/repaired':
      return `${e.data.cause}: ${e.data.items.length} synthetic event(s)`
    case 'error':
      return `${e.data.scope} ${e.data.code}: ${clip(e.data.message, 60)}`
    case 'notice':
      return `${e.data.level} ${e.data.code}: ${clip(e.data.message, 60)}`
    default:
      // A type this renderer does not know (the union is exhaustive, so only a newer log).
      return ''
  }
}
