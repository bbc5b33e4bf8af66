import { describe, expect, it } from 'vitest'
import { buildItems } from '../../renderer/src/features/chat/projection'
import { asEvent } from './event-fixture'

const ev = (seq: number, type: string, at: number, data: Record<string, unknown> = {}) =>
  asEvent({ v: 1, seq, turn: 1, step: 0, at, type, data })

describe("a fork's copied turn", () => {
  it('shows its own duration, not the time until the fork', () => {
    const items = buildItems([
      ev(0, 'turn/start', 1_000),
      ev(1, 'user/message', 1_100, { content: 'hi', kind: 'input' }),
      ev(2, 'assistant/message', 3_000, { blocks: [], finish: 'stop' }),
      // Closed by the fork four minutes later.
      ev(3, 'turn/end', 241_000, { reason: 'cancelled' }),
      ev(4, 'recovery/repaired', 241_000, {
        cause: 'fork',
        items: [{ seq: 3, what: 'turn/end' }],
      }),
    ])
    const end = items.find((item) => item.kind === 'turn-end')
    expect(end).toMatchObject({ durationMs: 2_000 })
  })
})
