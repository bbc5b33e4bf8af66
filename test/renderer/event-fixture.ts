import type { EventDto } from '../../protocol/contract'
import type { EventHead } from '../../protocol/events'

/** An event as a test writes it: the payload holds only what the code under test reads. */
export interface LooseEvent extends EventHead {
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * A test's event as the panels receive it. The cast stands where the bridge's parse stands in the
 * app (every event is checked against its type's schema there, see EventDto in
 * protocol/contract.ts), so a test need not spell out the fields it does not look at.
 */
export const asEvent = (event: LooseEvent): EventDto => event as unknown as EventDto
