import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { estimateTokens, loadEncoding } from '../../../main/core/tokens/index.js'

const repo = new URL('../../../', import.meta.url)
const prose = readFileSync(new URL('README.md', repo), 'utf8')
const code = readFileSync(new URL('main/core/log/session.ts', repo), 'utf8')
const o200k = loadEncoding('o200k_base')
const cl100k = loadEncoding('cl100k_base')

describe('estimateTokens', () => {
  it('is 0 only for the empty string, and an integer', () => {
    expect(estimateTokens('')).toBe(0)
    for (const text of ['a', ' ', '\n', '.', '7', 'é', '中', '🙂', prose.slice(0, 777)]) {
      const n = estimateTokens(text)
      expect(n).toBeGreaterThanOrEqual(1)
      expect(Number.isInteger(n)).toBe(true)
    }
  })

  it('is deterministic and grows with the text', () => {
    expect(estimateTokens(code)).toBe(estimateTokens(code))
    expect(estimateTokens(prose + prose)).toBeGreaterThan(estimateTokens(prose))
    expect(estimateTokens('one two three four')).toBeGreaterThan(estimateTokens('one two'))
  })

  it('is about additive over concatenation', () => {
    const apart = estimateTokens(prose) + estimateTokens(code)
    const together = estimateTokens(`${prose}\n${code}`)
    expect(Math.abs(together - apart)).toBeLessThanOrEqual(2)
  })

  it.each([
    ['English prose (README.md)', prose],
    ['TypeScript (main/core/log/session.ts)', code],
  ])('is within 25%% of o200k and cl100k on %s', (_name, text) => {
    const estimate = estimateTokens(text)
    for (const exact of [o200k(text), cl100k(text)]) {
      expect(estimate / exact).toBeGreaterThan(0.75)
      expect(estimate / exact).toBeLessThan(1.25)
    }
  })

  it('counts CJK at about a token a character', () => {
    const chinese = '人工智能正在改变我们的生活方式和工作方式，今天天气很好，我们去公园散步吧。'
    const japanese = 'こんにちは、世界。今日はいい天気ですね。散歩に行きましょう。'
    for (const text of [chinese, japanese]) {
      const estimate = estimateTokens(text)
      expect(estimate).toBeGreaterThanOrEqual(text.length * 0.7)
      expect(estimate).toBeLessThanOrEqual(text.length * 1.3)
      // Between the CJK-frugal o200k and the CJK-hungry cl100k.
      expect(estimate).toBeGreaterThanOrEqual(o200k(text) * 0.9)
      expect(estimate).toBeLessThanOrEqual(cl100k(text) * 1.1)
    }
  })

  it('gives other scripts, emoji and numbers sensible counts', () => {
    const russian = 'Привет, мир. Сегодня хорошая погода, пойдём гулять в парк.'
    expect(estimateTokens(russian)).toBeGreaterThan(o200k(russian) * 0.6)
    expect(estimateTokens(russian)).toBeLessThan(cl100k(russian) * 1.5)
    expect(estimateTokens('🙂🎉🚀')).toBeGreaterThanOrEqual(3)
    // Digits go in groups of three, as the GPT-4-era pre-tokenizers split them.
    expect(estimateTokens('123456789')).toBe(3)
  })

  it('counts 100 KB quickly', () => {
    let text = ''
    while (text.length < 100_000) text += prose + code
    const started = performance.now()
    expect(estimateTokens(text)).toBeGreaterThan(10_000)
    // Generous for a loaded CI machine; it takes about a millisecond.
    expect(performance.now() - started).toBeLessThan(100)
  })
})
