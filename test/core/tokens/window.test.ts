import { describe, expect, it } from 'vitest'
import {
  CONTEXT_TRUNCATED_BY_SERVER,
  ContextWindow,
  TRUNCATION_RATIO,
  detectTruncation,
} from '../../../main/core/tokens/window.js'
import type { WindowSource } from '../../../main/core/tokens/window.js'

describe('detectTruncation', () => {
  it("takes Ollama's count stopping at num_ctx for a cut to that window", () => {
    expect(detectTruncation({ sent: 9000, reported: 4096 })).toEqual({
      honouredWindow: 4096,
      sent: 9000,
      reported: 4096,
    })
    expect(detectTruncation({ sent: 30_000, reported: 2048 })?.honouredWindow).toBe(2048)
    expect(detectTruncation({ sent: 100_000, reported: 32768 })?.honouredWindow).toBe(32768)
  })

  it('takes the 2026 builds counting num_ctx/2+2 for a cut to num_ctx', () => {
    expect(detectTruncation({ sent: 9000, reported: 2050 })?.honouredWindow).toBe(4096)
    expect(detectTruncation({ sent: 5000, reported: 2050 })?.honouredWindow).toBe(4096)
    expect(detectTruncation({ sent: 3000, reported: 1026 })?.honouredWindow).toBe(2048)
    expect(detectTruncation({ sent: 40_000, reported: 8194 })?.honouredWindow).toBe(16384)
  })

  it('does not take a small report of the uncached part for a cut', () => {
    expect(detectTruncation({ sent: 20_000, reported: 300 })).toBeUndefined()
    expect(detectTruncation({ sent: 50_000, reported: 900 })).toBeUndefined()
  })

  it('does not take a report at a size no window the prompt exceeded can have', () => {
    // 4500 is above 4096, and 8192 (of which it is over half) was not exceeded by the prompt.
    expect(detectTruncation({ sent: 8000, reported: 4500 })).toBeUndefined()
    expect(detectTruncation({ sent: 9000, reported: 4500 })?.honouredWindow).toBe(8192)
  })

  it('does not take a prompt that fitted the window the server reports for a cut', () => {
    expect(detectTruncation({ sent: 20_000, reported: 4096, knownWindow: 32768 })).toBeUndefined()
    expect(detectTruncation({ sent: 20_000, reported: 4096, knownWindow: 20_000 })).toBeUndefined()
  })

  it('prefers a known window the prompt exceeded, even one that is not a common size', () => {
    expect(detectTruncation({ sent: 30_000, reported: 12_000, knownWindow: 12_000 })).toEqual({
      honouredWindow: 12_000,
      sent: 30_000,
      reported: 12_000,
    })
    expect(detectTruncation({ sent: 30_000, reported: 12_000 })?.honouredWindow).toBe(16384)
  })

  it('ignores small prompts', () => {
    expect(detectTruncation({ sent: 1023, reported: 100 })).toBeUndefined()
    expect(detectTruncation({ sent: 1000, reported: 512 })).toBeUndefined()
  })

  it('ignores a report that is not far below what was sent', () => {
    expect(TRUNCATION_RATIO).toBe(0.6)
    expect(detectTruncation({ sent: 6000, reported: 4000 })).toBeUndefined()
    expect(detectTruncation({ sent: 10_000, reported: 6000 })).toBeUndefined()
    expect(detectTruncation({ sent: 10_000, reported: 5999 })?.honouredWindow).toBe(8192)
    expect(detectTruncation({ sent: 10_000, reported: 12_000 })).toBeUndefined()
  })

  it('takes a count exactly at a window, or at half of it plus two, for a cut even when close', () => {
    expect(detectTruncation({ sent: 6000, reported: 4096 })?.honouredWindow).toBe(4096)
    expect(detectTruncation({ sent: 4600, reported: 2050 })?.honouredWindow).toBe(4096)
    expect(detectTruncation({ sent: 12_000, reported: 8192, knownWindow: 16384 })).toBeUndefined()
    expect(detectTruncation({ sent: 12_000, reported: 5000, knownWindow: 5000 })).toEqual({
      honouredWindow: 5000,
      sent: 12_000,
      reported: 5000,
    })
  })

  it('does not take an exact count for a cut when the prompt was within a tenth of the window', () => {
    expect(detectTruncation({ sent: 4400, reported: 4096 })).toBeUndefined()
    expect(detectTruncation({ sent: 4400, reported: 4000 })).toBeUndefined()
  })

  it('before calibration, takes only a report close under a window (a tokenizer unlike ours)', () => {
    // Much CJK text: the server's tokenizer counts 55% of our first estimate, and cut nothing.
    expect(detectTruncation({ sent: 10_000, reported: 5_500, isCalibrated: false })).toBeUndefined()
    // Once calibrated, the same report in the upper half of 8,192 under 10,000 sent is a cut.
    expect(detectTruncation({ sent: 10_000, reported: 5_500 })).toMatchObject({
      honouredWindow: 8192,
    })
    // A count stopping just under a window is a cut either way.
    expect(detectTruncation({ sent: 14_000, reported: 8_100, isCalibrated: false })).toMatchObject({
      honouredWindow: 8192,
    })
  })

  it('names its error code', () => {
    expect(CONTEXT_TRUNCATED_BY_SERVER).toBe('CONTEXT_TRUNCATED_BY_SERVER')
  })
})

describe('ContextWindow', () => {
  it('lowers the window, becomes learned and tells its callback', () => {
    const lowered: number[] = []
    const window = new ContextWindow(32768, 'advertised', (tokens) => lowered.push(tokens))
    expect(window.lower(4096)).toBe(true)
    expect(window.tokens).toBe(4096)
    expect(window.source).toBe('learned')
    expect(lowered).toEqual([4096])
    expect(window.lower(2048)).toBe(true)
    expect(lowered).toEqual([4096, 2048])
  })

  it('never raises the window, nor takes the same size again', () => {
    const lowered: number[] = []
    const window = new ContextWindow(8192, 'configured', (tokens) => lowered.push(tokens))
    expect(window.lower(16384)).toBe(false)
    expect(window.lower(8192)).toBe(false)
    expect(window.tokens).toBe(8192)
    expect(window.source).toBe('configured')
    expect(lowered).toEqual([])
  })

  it('refuses sizes that are not positive integers', () => {
    const window = new ContextWindow(8192, 'server')
    for (const tokens of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(window.lower(tokens), String(tokens)).toBe(false)
    }
    expect(window.tokens).toBe(8192)
  })

  it('takes a first window when none was known', () => {
    const window = new ContextWindow(undefined, 'default')
    expect(window.tokens).toBeUndefined()
    expect(window.lower(4096)).toBe(true)
    expect(window.tokens).toBe(4096)
  })

  it('gives a server window only for what the server runs: server, probed, learned', () => {
    const expected: Record<WindowSource, number | undefined> = {
      configured: undefined,
      server: 8192,
      advertised: undefined,
      default: undefined,
      probed: 8192,
      learned: 8192,
    }
    for (const [source, window] of Object.entries(expected)) {
      expect(new ContextWindow(8192, source as WindowSource).serverWindow, source).toBe(window)
    }
  })

  it('gives the lowered window as a server window after an advertised one', () => {
    const window = new ContextWindow(131072, 'advertised')
    expect(window.serverWindow).toBeUndefined()
    window.lower(4096)
    expect(window.serverWindow).toBe(4096)
  })
})
