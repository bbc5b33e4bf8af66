import { describe, expect, it } from 'vitest'
import { ThinkTagSplitter } from '../../../main/core/models/think-tags.js'
import type { ContentPiece } from '../../../main/core/models/think-tags.js'

function run(fragments: readonly string[]): { text: string; reasoning: string } {
  const splitter = new ThinkTagSplitter()
  const pieces: ContentPiece[] = []
  for (const fragment of fragments) pieces.push(...splitter.push(fragment))
  pieces.push(...splitter.flush())
  let text = ''
  let reasoning = ''
  for (const piece of pieces) {
    if (piece.kind === 'retract') {
      reasoning += text
      text = ''
      continue
    }
    expect(piece.text).not.toBe('')
    if (piece.kind === 'text') text += piece.text
    else reasoning += piece.text
  }
  return { text, reasoning }
}

const SAMPLE =
  '\n<think>\nThe user greets me; 2 < 3 and </th is not a tag.\n</think>\n\nHello <b>there</b>!'
const EXPECTED = {
  reasoning: '\nThe user greets me; 2 < 3 and </th is not a tag.\n',
  text: 'Hello <b>there</b>!',
}

describe('ThinkTagSplitter', () => {
  it('separates a leading think block from the answer', () => {
    expect(run([SAMPLE])).toEqual(EXPECTED)
  })

  it('gives the same result for a split at every position', () => {
    for (let at = 0; at <= SAMPLE.length; at++) {
      expect(run([SAMPLE.slice(0, at), SAMPLE.slice(at)]), `split at ${at}`).toEqual(EXPECTED)
    }
  })

  it('gives the same result for every pair of split positions', () => {
    for (let a = 0; a <= SAMPLE.length; a++) {
      for (let b = a; b <= SAMPLE.length; b++) {
        const fragments = [SAMPLE.slice(0, a), SAMPLE.slice(a, b), SAMPLE.slice(b)]
        expect(run(fragments), `split at ${a} and ${b}`).toEqual(EXPECTED)
      }
    }
  })

  it('gives the same result one UTF-16 unit at a time', () => {
    expect(run(SAMPLE.split(''))).toEqual(EXPECTED)
  })

  it('leaves a tag that does not open the content as text', () => {
    const text = 'Use the <think> tag like this: <think>x</think>'
    expect(run([text])).toEqual({ text, reasoning: '' })
  })

  it('takes everything before a lone </think> as reasoning (a template opened the block)', () => {
    const sample = 'The user wants a greeting.\nSay hi.\n</think>\n\nHello!'
    const expected = { reasoning: 'The user wants a greeting.\nSay hi.\n', text: 'Hello!' }
    for (let at = 0; at <= sample.length; at++) {
      expect(run([sample.slice(0, at), sample.slice(at)]), `split at ${at}`).toEqual(expected)
    }
    expect(run(Array.from(sample))).toEqual(expected)
  })

  it('leaves a lone </think> as text when told the template never opens one', () => {
    const splitter = new ThinkTagSplitter({ unopened: false })
    const pieces = [...splitter.push('a </think> b'), ...splitter.flush()]
    expect(pieces).toEqual([{ kind: 'text', text: 'a </think> b' }])
  })

  it('keeps plain content, and a lone partial tag, as text', () => {
    expect(run(['Hello'])).toEqual({ text: 'Hello', reasoning: '' })
    expect(run(['  <thi'])).toEqual({ text: '  <thi', reasoning: '' })
    expect(run(['<thinking>'])).toEqual({ text: '<thinking>', reasoning: '' })
  })

  it('treats an unterminated think block as reasoning, a held partial close tag included', () => {
    expect(run(['<think>still thinking </thi'])).toEqual({
      text: '',
      reasoning: 'still thinking </thi',
    })
  })
})
