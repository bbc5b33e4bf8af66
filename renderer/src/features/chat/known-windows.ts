/**
 * The model's context window for the meter. The host knows it only for a session whose agent is
 * built (one that ran a turn since Bridle started), so a fork or a session just opened lost the
 * meter's bar. Windows seen are remembered per model, and a session without one of its own uses
 * the one of the model its last request went to. Pure apart from the map passed in.
 */
import type { EventDto } from '../../../../protocol/contract'

/** Windows by model id, for the app's lifetime. */
export const KNOWN_WINDOWS = new Map<string, number>()

/** The model of the latest request in the log, if any. */
export function latestModel(events: readonly EventDto[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event?.type === 'request/start') return event.data.model
  }
  return undefined
}

/** The session's window if known (remembered for its model), else the one known for its model. */
export function meterWindow(
  events: readonly EventDto[],
  window: number | undefined,
  known: Map<string, number> = KNOWN_WINDOWS,
): number | undefined {
  const model = latestModel(events)
  if (window !== undefined) {
    if (model !== undefined) known.set(model, window)
    return window
  }
  return model === undefined ? undefined : known.get(model)
}
