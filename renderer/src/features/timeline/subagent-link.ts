/**
 * Which other session an event of the timeline leads to, so its detail can open it: a subagent
 * from the `subagent/started` that names it, the `task` call's result (`metadata.subagent`) or
 * the `task` call itself (through either of those, found among the session's events); the parent
 * from a subagent's own `session/spawned`. Pure.
 */
import type { EventDto, EventDtoOf } from '../../../../protocol/contract'

export interface SessionLink {
  readonly sessionId: string
  readonly label: 'Open subagent' | 'Open parent session'
}

export function sessionLinkOf(
  event: EventDto,
  events: readonly EventDto[],
): SessionLink | undefined {
  if (event.type === 'session/spawned')
    return { sessionId: String(event.data.by.sessionId), label: 'Open parent session' }
  const sessionId = subagentOfEvent(event, events)
  return sessionId === undefined ? undefined : { sessionId, label: 'Open subagent' }
}

function subagentOfEvent(event: EventDto, events: readonly EventDto[]): string | undefined {
  switch (event.type) {
    case 'subagent/started':
      return String(event.data.sessionId)
    case 'tool/result':
      return resultSubagent(event)
    case 'tool/call': {
      if (event.data.name !== 'task' || event.data.mcp !== undefined) return undefined
      const { callId } = event.data
      for (const other of events) {
        if (other.seq <= event.seq || other.turn !== event.turn || other.step !== event.step)
          continue
        if (other.type === 'subagent/started' && other.data.callId === callId)
          return String(other.data.sessionId)
        if (other.type === 'tool/result' && other.data.callId === callId)
          return resultSubagent(other)
      }
      return undefined
    }
    default:
      return undefined
  }
}

function resultSubagent(event: EventDtoOf<'tool/result'>): string | undefined {
  const subagent = event.data.metadata?.['subagent']
  return typeof subagent === 'string' ? subagent : undefined
}
