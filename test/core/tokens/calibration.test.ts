import { describe, expect, it } from 'vitest'
import { Calibration, CALIBRATION_MAX, CALIBRATION_MIN } from '../../../main/core/tokens/index.js'

describe('Calibration', () => {
  it('is 1 for a model it has not seen', () => {
    expect(new Calibration().ratio('llama3.1:8b')).toBe(1)
  })

  it('takes the first report as it is, then converges toward the reported ratio', () => {
    const calibration = new Calibration()
    calibration.observe('qwen3:8b', 1000, 1200)
    expect(calibration.ratio('qwen3:8b')).toBeCloseTo(1.2)
    for (let i = 0; i < 30; i++) calibration.observe('qwen3:8b', 1000, 800)
    expect(calibration.ratio('qwen3:8b')).toBeCloseTo(0.8, 2)
    expect(calibration.samples('qwen3:8b')).toBe(31)
  })

  it('smooths: one odd report moves a settled ratio only part of the way', () => {
    const calibration = new Calibration()
    for (let i = 0; i < 10; i++) calibration.observe('m', 1000, 1000)
    calibration.observe('m', 1000, 1500)
    const ratio = calibration.ratio('m')
    expect(ratio).toBeGreaterThan(1)
    expect(ratio).toBeLessThan(1.25)
  })

  it('stays within its bounds', () => {
    const calibration = new Calibration()
    for (let i = 0; i < 20; i++) calibration.observe('big', 100, 10_000)
    expect(calibration.ratio('big')).toBe(CALIBRATION_MAX)
    calibration.observe('small', 10_000, 100)
    expect(calibration.ratio('small')).toBe(CALIBRATION_MIN)
  })

  it('ignores tiny prompts and nonsense', () => {
    const calibration = new Calibration()
    calibration.observe('m', 10, 40)
    calibration.observe('m', 0, 100)
    calibration.observe('m', 1000, 0)
    calibration.observe('m', Number.NaN, 100)
    calibration.observe('m', 1000, Number.POSITIVE_INFINITY)
    expect(calibration.samples('m')).toBe(0)
    expect(calibration.ratio('m')).toBe(1)
  })

  it('ignores a report far below a settled ratio (a server counting only uncached tokens)', () => {
    const calibration = new Calibration()
    for (let i = 0; i < 5; i++) calibration.observe('llama3.1:8b', 1000, 1100)
    calibration.observe('llama3.1:8b', 5000, 400)
    expect(calibration.ratio('llama3.1:8b')).toBeCloseTo(1.1)
    expect(calibration.samples('llama3.1:8b')).toBe(5)
  })

  it('keys models case- and space-insensitively', () => {
    const calibration = new Calibration()
    calibration.observe(' Llama3.1:8B ', 1000, 1300)
    expect(calibration.ratio('llama3.1:8b')).toBeCloseTo(1.3)
  })

  it('round-trips through JSON', () => {
    const calibration = new Calibration()
    calibration.observe('a', 1000, 1300)
    calibration.observe('b', 1000, 700)
    const restored = Calibration.fromJSON(JSON.parse(JSON.stringify(calibration)))
    expect(restored.toJSON()).toEqual(calibration.toJSON())
    expect(restored.ratio('a')).toBeCloseTo(1.3)
    expect(restored.samples('b')).toBe(1)
  })

  it('restores what it can from damaged JSON and never throws', () => {
    for (const json of [null, 3, 'x', [], {}, { version: 2, models: {} }, { version: 1 }]) {
      expect(Calibration.fromJSON(json).toJSON()).toEqual({ version: 1, models: {} })
    }
    const restored = Calibration.fromJSON({
      version: 1,
      models: {
        good: { ratio: 1.4, samples: 3 },
        huge: { ratio: 50, samples: 3 },
        nan: { ratio: 'x', samples: 3 },
        none: { ratio: 1.2, samples: 0 },
        broken: null,
      },
    })
    expect(restored.ratio('good')).toBe(1.4)
    expect(restored.ratio('huge')).toBe(CALIBRATION_MAX)
    expect(Object.keys(restored.toJSON().models).sort()).toEqual(['good', 'huge'])
  })
})
