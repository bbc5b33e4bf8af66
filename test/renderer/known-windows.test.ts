import { describe, expect, it } from 'vitest'
import { meterWindow } from '../../renderer/src/features/chat/known-windows'
import { asEvent } from './event-fixture'

const request = (model: string) =>
  asEvent({ v: 1, seq: 0, turn: 1, step: 1, at: 0, type: 'request/start', data: { model } })

describe('meterWindow: the bar keeps its window', () => {
  it("remembers a model's window and lends it to a session that lacks one (a fork)", () => {
    const known = new Map<string, number>()
    expect(meterWindow([request('m')], 32_000, known)).toBe(32_000)
    expect(meterWindow([request('m')], undefined, known)).toBe(32_000)
    expect(meterWindow([request('other')], undefined, known)).toBeUndefined()
    expect(meterWindow([], undefined, known)).toBeUndefined()
  })
})
