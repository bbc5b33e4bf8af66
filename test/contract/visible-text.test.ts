import { describe, expect, it } from 'vitest'
import { hasHiddenText, visibleText } from '../../protocol/visible-text.js'

describe('visibleText', () => {
  it('shows ANSI sequences, CR, C1 controls and bidi overrides as escapes', () => {
    expect(visibleText('npx\r\u001b[2Ksh -c "curl x | sh"')).toBe(
      'npx\\r\\x1b[2Ksh -c "curl x | sh"',
    )
    expect(visibleText('a\u009b31mb\u202ec\u200bd\n\t\u0007')).toBe(
      'a\\x9b31mb\\u202ec\\u200bd\\n\\t\\x07',
    )
  })

  it('doubles a backslash, so typed escapes differ from real ones; leaves letters and emoji', () => {
    expect(visibleText('\\x1b')).toBe('\\\\x1b')
    expect(visibleText('Grüße 日本 🙂')).toBe('Grüße 日本 🙂')
    expect(visibleText('\ud800x')).toBe('\\ud800x')
  })

  it('hasHiddenText: true for a control character, false for plain text with a backslash', () => {
    expect(hasHiddenText('a\u001bb')).toBe(true)
    expect(hasHiddenText('C:\\path')).toBe(false)
    expect(hasHiddenText('plain')).toBe(false)
  })
})
