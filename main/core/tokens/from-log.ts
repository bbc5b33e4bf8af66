/**
 * Rebuilds a calibration from a session's log: every `request/start` that carries an estimate
 * and whose step's `assistant/message` reports the server's prompt tokens is one sample. So a
 * reopened session counts as well as it did when it stopped, with no state beside the log. A
 * sample the loop found cut by the server (CONTEXT_TRUNCATED_BY_SERVER, logged right after the
 * message) is left out, as it was when the session ran.
 */
import type { LogEvent } from '../../../protocol/events.js'
import type { Message } from '../log/messages.js'
import type { ToolSpec } from '../models/types.js'
import { Calibration } from './calibration.js'
import { CONTEXT_TRUNCATED_BY_SERVER } from './window.js'
import { tokenCounter } from './counter.js'
import type { TokenCounter } from './counter.js'

export function calibrationFromLog(
  events: Iterable<LogEvent>,
  into: Calibration = new Calibration(),
): Calibration {
  let pending: { model: string; uncalibrated: number } | undefined
  let sample: { model: string; uncalibrated: number; reported: number } | undefined
  const learn = () => {
    if (sample) into.observe(sample.model, sample.uncalibrated, sample.reported)
    sample = undefined
  }
  for (const event of events) {
    if (event.type === 'request/start') {
      learn()
      const { estimate, model } = event.data
      pending = estimate ? { model, uncalibrated: estimate.uncalibrated } : undefined
    } else if (event.type === 'assistant/message') {
      const reported = event.data.usage?.inputTokens
      if (pending && reported !== undefined) sample = { ...pending, reported }
      pending = undefined
    } else if (event.type === 'error' && event.data.code === CONTEXT_TRUNCATED_BY_SERVER) {
      sample = undefined
    } else if (event.type === 'step/end') {
      learn()
      pending = undefined
    }
  }
  learn()
  return into
}

/** What a session's tools and plugins count with: one counter (its caches) per session and model. */
export interface SessionTokens {
  readonly counter: TokenCounter
  readonly calibration: Calibration
  /** The calibrated total of a prompt: the shape compaction's `count` option takes. */
  readonly total: (messages: readonly Message[], tools?: readonly ToolSpec[]) => number
}

/** A counter for `model`, calibrated from what the session's log already knows. */
export function sessionTokens(events: Iterable<LogEvent>, model: string): SessionTokens {
  const calibration = calibrationFromLog(events)
  const counter = tokenCounter(model, { calibration })
  return {
    counter,
    calibration,
    total: (messages, tools) => counter.countMessages(messages, tools).total,
  }
}
