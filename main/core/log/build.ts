import { LogError } from './errors.js'
import { EVENT_VERSION, eventData, isEventType } from '../../../protocol/events.js'
import type { EventDataInput, EventType, LogEvent, LogEventOf } from '../../../protocol/events.js'
import { assertPlainJson, deepFreeze } from './freeze.js'
import type { Lifecycle } from './lifecycle.js'

export interface BuiltEvent<T extends EventType = EventType> {
  readonly event: LogEventOf<T>
  /** The data exactly as stored (JSON text). */
  readonly text: string
}

/**
 * Validates one event and builds it, without writing anything: a known type, plain JSON data
 * that passes its schema, and the turn/step rules of `lifecycle` (which is not advanced). The
 * data is the schema's output, a fresh copy the caller cannot reach, deep-frozen; `text` is its
 * JSON, which is what the store holds.
 */
export function buildEvent<T extends EventType>(
  lifecycle: Lifecycle,
  seq: number,
  type: T,
  data: EventDataInput<T>,
  at: number,
): BuiltEvent<T> {
  if (!isEventType(type))
    throw new LogError('UNKNOWN_EVENT_TYPE', `unknown event type "${String(type)}"`)
  let text: string
  let value: unknown
  try {
    assertPlainJson(data)
    const parsed = eventData[type].safeParse(data)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new TypeError(`${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`)
    }
    value = parsed.data
    text = JSON.stringify(value)
  } catch (error) {
    if (error instanceof LogError) throw error
    throw new LogError(
      'INVALID_EVENT',
      `${type}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    )
  }
  const { turn, step } = lifecycle.check(type, value)
  const event = deepFreeze({
    type,
    v: EVENT_VERSION,
    seq,
    turn,
    step,
    at,
    data: value,
  }) as LogEventOf<T>
  return { event, text }
}

export type { LogEvent }
