import { describe, expect, it } from 'vitest'
import {
  applyPick,
  matchPaths,
  mentionAt,
  MAX_MATCHES,
} from '../../renderer/src/features/chat/attach/complete'

const PATHS = [
  'README.md',
  'docs/ARCHITECTURE.md',
  'main/core/host/runtime/runtime.ts',
  'renderer/src/features/chat/composer.tsx',
  'src/compose.ts',
  'test/e2e/chat.e2e.ts',
]

describe('mentionAt', () => {
  it('finds the @word the caret ends, at the start or after a space', () => {
    expect(mentionAt('@', 1)).toEqual({ start: 0, end: 1, query: '' })
    expect(mentionAt('look at @src/co', 15)).toEqual({ start: 8, end: 15, query: 'src/co' })
    expect(mentionAt('line one\n@read', 14)).toEqual({ start: 9, end: 14, query: 'read' })
  })

  it('ignores an @ inside a word (an email) and a word the caret has left', () => {
    expect(mentionAt('mail me@example.com', 19)).toBeUndefined()
    expect(mentionAt('@src done', 9)).toBeUndefined()
    expect(mentionAt('no mention', 10)).toBeUndefined()
  })
})

describe('matchPaths', () => {
  it('ranks name prefix, then name, then path, then in-order letters; shorter first within a rank', () => {
    expect(matchPaths(PATHS, 'comp')).toEqual([
      'src/compose.ts',
      'renderer/src/features/chat/composer.tsx',
    ])
    // The name match first; the letters a-r-c-h in order elsewhere come last.
    expect(matchPaths(PATHS, 'arch')).toEqual([
      'docs/ARCHITECTURE.md',
      'renderer/src/features/chat/composer.tsx',
    ])
    expect(matchPaths(PATHS, 'core/host')).toEqual(['main/core/host/runtime/runtime.ts'])
    expect(matchPaths(PATHS, 'rdme')[0]).toBe('README.md')
    expect(matchPaths(PATHS, 'zzz')).toEqual([])
  })

  it('lists everything (shortest first) for a bare @, capped', () => {
    expect(matchPaths(PATHS, '')[0]).toBe('README.md')
    const many = Array.from({ length: 200 }, (_, i) => `f${i}.txt`)
    expect(matchPaths(many, '')).toHaveLength(MAX_MATCHES)
  })
})

describe('applyPick', () => {
  it('replaces the mention with the path and puts the caret after it', () => {
    const text = 'explain @comp please'
    const mention = mentionAt(text, 13)
    if (!mention) throw new Error('no mention')
    expect(applyPick(text, mention, 'src/compose.ts')).toEqual({
      text: 'explain @src/compose.ts please',
      caret: 24,
    })
  })
})
