/**
 * Events cross the bridge typed: `EventDto` is the log's own union, so checking `type` narrows
 * `data`. This file is type-checked with the renderer (tsconfig.web.json); each
 * `@ts-expect-error` below fails `npm run typecheck` the day the error it expects goes away,
 * that is, the day events lose their types again.
 */
import { describe, expect, it } from 'vitest'
import { EventDto } from '../../protocol/contract'
import type { EventDtoOf } from '../../protocol/contract'
import { isOfType, lastOfType } from '../../renderer/src/state/event-selectors'

const toolCall = EventDto.parse({
  seq: 3,
  type: 'tool/call',
  v: 1,
  turn: 1,
  step: 1,
  at: 1000,
  data: { callId: 'c1', name: 'read', args: { path: 'a.txt' } },
})

describe('typed events', () => {
  it('narrows the payload by type', () => {
    const event: EventDto = toolCall
    if (event.type === 'tool/call') {
      const callId: string = event.data.callId
      expect(callId).toBe('c1')
      // @ts-expect-error a tool/call has no `output` (that is tool/result's)
      expect(event.data.output).toBeUndefined()
    }
    // @ts-expect-error without narrowing, `callId` is not on every event's payload
    expect(event.data.callId).toBe('c1')
  })

  it('narrows a tool result by its outcome', () => {
    const result = EventDto.parse({
      ...toolCall,
      seq: 4,
      type: 'tool/result',
      data: { callId: 'c1', ok: false, error: { code: 'NOT_FOUND', message: 'no file' } },
    })
    if (result.type !== 'tool/result') throw new Error('expected a tool/result')
    // @ts-expect-error `error` exists only once `ok` says the call failed
    const { error } = result.data
    expect(error).toMatchObject({ code: 'NOT_FOUND' })
    if (!result.data.ok) expect(result.data.error.code).toBe('NOT_FOUND')
  })

  it('types what the selectors find', () => {
    const events: EventDto[] = [toolCall]
    const found: EventDtoOf<'tool/call'> | undefined = lastOfType(events, 'tool/call')
    expect(found?.data.name).toBe('read')
    const calls = events.filter(isOfType('tool/call'))
    expect(calls.map((call) => call.data.args)).toEqual([{ path: 'a.txt' }])
    // @ts-expect-error an event type the log does not have
    lastOfType(events, 'tool/called')
  })

  it('fills what an older payload of the same version left out', () => {
    // Written before `kind` existed: the bridge's parse gives it the default.
    const old = EventDto.parse({ ...toolCall, type: 'user/message', data: { content: 'hi' } })
    expect(old.type === 'user/message' && old.data.kind).toBe('input')
  })
})
