import { describe, expect, it } from 'vitest'
import {
  codeSentence,
  CONTEXT_LABEL,
  recoveredText,
} from '../../renderer/src/features/chat/plain-words'

describe('plain words for codes and log terms', () => {
  it('says what a code means in a sentence', () => {
    expect(codeSentence('ABORTED_BEFORE_DISPATCH')).toBe('Stopped before it ran.')
    expect(codeSentence('STALE_FILE')).toMatch(/changed on disk/)
    expect(codeSentence('SOMETHING_NEW')).toBeUndefined()
  })

  it('describes a fork and a crash recovery without log words', () => {
    expect(recoveredText('fork', 2)).toBe(
      'This branch starts mid-turn; the unfinished steps were closed',
    )
    expect(recoveredText('crash', 1)).toMatch(/^Bridle stopped unexpectedly/)
    expect(CONTEXT_LABEL).toBe('What Bridle told the model about your project')
  })
})
