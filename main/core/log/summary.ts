import type { LogEvent, WireSettings } from '../../../protocol/events.js'

const clip = (text: string, max = 80): string => {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** The shape a request took on the wire, where it differs from plain OpenAI streaming. */
function wireSummary(wire: WireSettings | undefined): string {
  if (wire === undefined) return ''
  const notes = [
    wire.api === 'ollama'
      ? `ollama api${wire.numCtx === undefined ? '' : ` num_ctx ${wire.numCtx}`}`
      : '',
    wire.toolCalls === 'native' ? '' : `tools ${wire.toolCalls}`,
    wire.api === 'openai' && !wire.streamUsage ? 'no stream_options' : '',
    wire.replayReasoning ? 'reasoning sent back' : '',
  ].filter(Boolean)
  return notes.length === 0 ? '' : `; ${notes.join(', ')}`
}

/** "by full-auto", "by rule bash: npm test *": who decided, when it was not the user. */
function decider(data: { by?: string; detail?: string }): string {
  if (data.by === undefined || data.by === 'user') return ''
  return ` by ${data.by}${data.detail ? ` (${clip(data.detail, 40)})` : ''}`
}

/** One line that says what an event is about, for timelines (CLI `events`, the inspector). */
export function summarizeEvent(event: LogEvent): string {
  switch (event.type) {
    case 'session/created':
      return `project ${event.data.projectDir}${event.data.model ? `, model ${event.data.model}` : ''}`
    case 'session/title':
      return `${clip(event.data.title)}${event.data.source === 'user' ? '' : ` (${event.data.source})`}`
    case 'session/spawned':
      return `subagent of ${String(event.data.by.sessionId)} (call ${event.data.by.callId}, ${event.data.mode}): ${clip(event.data.description, 60)}`
    case 'session/imported':
      return `from ${event.data.source}: ${event.data.file}`
    case 'session/model':
      return `${event.data.endpointId ? `${event.data.endpointId} ` : ''}${event.data.model}`
    case 'session/code-mode':
      return event.data.on ? 'code mode on' : 'code mode off'
    case 'inbox/queued':
      return `${event.data.requestId}: ${clip(event.data.message, 60)}`
    case 'inbox/claimed':
      return event.data.requestIds.join(', ')
    case 'turn/end':
    case 'step/end':
      return event.data.reason
    case 'user/message':
      return `${event.data.kind === 'input' ? '' : `(${event.data.kind}) `}${clip(event.data.content)}`
    case 'request/header':
      return `${event.data.reason}: ${event.data.sections.length} section(s), ${event.data.tools.length} tool(s)`
    case 'request/start':
      return `${event.data.provider} ${event.data.model} (header ${event.data.headerSeq})${event.data.estimate ? `, ~${event.data.estimate.tokens} tokens (${event.data.estimate.method})` : ''}${wireSummary(event.data.wire)}`
    case 'assistant/chunk':
      return `${event.data.deltas.length} delta(s)`
    case 'assistant/message': {
      const text = event.data.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ')
      const calls = event.data.blocks.flatMap((b) => (b.type === 'tool-call' ? [b.name] : []))
      const parts = [
        text ? clip(text, 60) : '',
        calls.length > 0 ? `calls ${calls.join(', ')}` : '',
      ]
      const { usage } = event.data
      const tokens =
        usage?.inputTokens === undefined
          ? ''
          : `, ${usage.inputTokens} in${usage.outputTokens === undefined ? '' : ` / ${usage.outputTokens} out`}`
      const fromText = event.data.textCalls
        ? `, calls read from text (${event.data.textCalls.format})`
        : ''
      return `${parts.filter(Boolean).join(' · ') || '(empty)'} [${event.data.finish}${event.data.interrupted ? ', interrupted' : ''}${tokens}${fromText}]`
    }
    case 'tool/call':
      return `${event.data.name} ${event.data.callId} ${clip(JSON.stringify(event.data.args), 50)}${event.data.parent ? ` (in ${event.data.parent.callId})` : ''}`
    case 'tool/result':
      return event.data.ok
        ? `${event.data.callId} ok: ${clip(event.data.output, 60)}`
        : `${event.data.callId} ${event.data.error.code}: ${clip(event.data.error.message, 50)}`
    case 'approval/requested':
      return `${event.data.callId} ${event.data.tool}: ${clip(event.data.description, 60)}`
    case 'approval/decided':
      return `${event.data.callId} ${event.data.decision}${decider(event.data)}${event.data.remember ? ` (remembered${event.data.grant ? ` "${event.data.grant}"` : ''})` : ''}${event.data.reason ? `: ${clip(event.data.reason, 50)}` : ''}`
    case 'process/started':
      return `${event.data.callId} pid ${event.data.pid}${event.data.sandboxed ? ', sandboxed' : ', not sandboxed'}`
    case 'subagent/started':
      return `${event.data.callId} session ${String(event.data.sessionId)}: ${clip(event.data.description, 60)}`
    case 'compaction/checkpoint':
      return `replaces ${event.data.fromSeq}..${event.data.toSeq}, ${event.data.tokensBefore} -> ${event.data.tokensAfter} tokens`
    case 'compaction/pruned':
      return `prunes ${event.data.seqs.length} tool output(s) from view`
    case 'compaction/undone':
      return `undoes checkpoint ${event.data.checkpointSeq}`
    case 'workspace/diff':
      return `${event.data.files.length} file(s) changed`
    case 'workspace/restored':
      return `files put back to seq ${event.data.toSeq}: ${event.data.written.length} written, ${event.data.removed.length} removed${event.data.skipped.length > 0 ? `, ${event.data.skipped.length} skipped` : ''}${event.data.drifted.length > 0 ? `, ${event.data.drifted.length} changed outside Bridle overwritten` : ''}`
    case 'workspace/restore-undone':
      return `undoes the restore at seq ${event.data.restoredSeq}${event.data.cause === 'failed' ? ' (it failed)' : ''}: ${event.data.written.length} written, ${event.data.removed.length} removed${event.data.skipped.length > 0 ? `, ${event.data.skipped.length} skipped` : ''}`
    case 'deliverable/present':
      return event.data.paths.join(', ')
    case 'recovery/repaired':
      return `${event.data.cause}: ${event.data.items.length} synthetic event(s)`
    case 'error':
      return `${event.data.scope} ${event.data.code}: ${clip(event.data.message, 60)}`
    case 'notice':
      return `${event.data.level} ${event.data.code}: ${clip(event.data.message, 60)}`
    case 'turn/start':
    case 'step/start':
      return ''
  }
}
