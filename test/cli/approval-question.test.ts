/**
 * The pure parts of what the CLI shows: `visibleLines` (every print of the CLI passes through it)
 * and `approvalQuestion` (the ask-mode prompt). The real terminal is `terminal-escapes.test.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { visibleLines } from '../../protocol/visible-text.js'
import { approvalQuestion, SHOWN_VALUE_CHARS } from '../../main/cli/approval-question.js'
import type { ApprovalRequest } from '../../main/core/tools/approvals.js'

const request = (over: Partial<ApprovalRequest>): ApprovalRequest => ({
  callId: 'c1',
  tool: 'write',
  args: {},
  description: 'write a.txt',
  approvalKey: undefined,
  ...over,
})

/** Any character a terminal acts on but LF and TAB (C0, DEL, C1, bidi, zero-width). */
// eslint-disable-next-line no-control-regex
const ACTING = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029]/u

describe('visibleLines', () => {
  it('shows every control, bidi and zero-width character as an escape; keeps lines, tabs and backslashes', () => {
    const text = 'a\x1b]52;c;eA==\x07b\r\x1b[2Kc\x9b2J\u202eevil\u200b\x7f\n\tC:\\path'
    expect(visibleLines(text)).toBe(
      'a\\u001b]52;c;eA==\\u0007b\\u000d\\u001b[2Kc\\u009b2J\\u202eevil\\u200b\\u007f\n\tC:\\path',
    )
    expect(visibleLines(text)).not.toMatch(ACTING)
  })

  it('leaves letters of every script and emoji alone', () => {
    // (A zero-width joiner inside an emoji sequence is shown as \u200d: it is zero-width too.)
    const text = 'héllo wörld ✓ 日本語 👩 💻 שלום'
    expect(visibleLines(text)).toBe(text)
  })

  it('keeps JSON valid and equal: what JSON.stringify leaves raw becomes a JSON escape', () => {
    const value = { text: 'x\x7f\x85\x9b[2J\u202e\u2066\ufeff\u2028y', n: 1 }
    const json = visibleLines(JSON.stringify(value, null, 2))
    expect(json).not.toMatch(ACTING)
    expect(JSON.parse(json)).toEqual(value)
  })

  it('escapes the same whichever way streamed text was split', () => {
    const text = 'ok \x1b]52;c;QQ==\x07 \x1b[31mred\x1b[0m'
    const whole = visibleLines(text)
    for (let at = 0; at <= text.length; at++)
      expect(visibleLines(text.slice(0, at)) + visibleLines(text.slice(at))).toBe(whole)
  })
})

describe('approvalQuestion', () => {
  it('shows a spoofing path as its JSON value, with a warning; nothing in it acts', () => {
    const path = 'notes.txt\r\x1b[2K.git/config'
    const shown = approvalQuestion(
      request({ args: { path, content: 'x' }, description: `write ${path}` }),
      path,
      undefined,
    )
    expect(shown).not.toMatch(ACTING)
    expect(shown).toContain('      path: "notes.txt\\r\\u001b[2K.git/config"\n')
    expect(shown).toContain('  ! the call holds control or invisible characters')
    expect(shown).toContain('[a] always allow "notes.txt\\r\\u001b[2K.git/config"')
  })

  it('gives each argument its own line, newlines inside a value as \\n, a long value cut with its length', () => {
    const content = `line one\nline two\n${'z'.repeat(1000)}`
    const shown = approvalQuestion(
      request({ args: { path: 'a.txt', content }, description: 'write a.txt (3 lines)' }),
      undefined,
      undefined,
    )
    expect(shown).toContain('      path: "a.txt"\n')
    expect(shown).toContain('      content: "line one\\nline two\\nzzz')
    expect(shown).toContain(`(${content.length} characters in all, cut here)`)
    const contentLine = shown.split('\n').find((line) => line.startsWith('      content:')) ?? ''
    expect(contentLine.length).toBeLessThan(SHOWN_VALUE_CHARS + 60)
    // Plain text raises no warning.
    expect(shown).not.toContain('invisible characters')
  })

  it('escapes the tool name, the description, the warnings and each grant of a bash line', () => {
    const shown = approvalQuestion(
      request({
        tool: 'mcp__x\x1b[8m',
        args: { command: 'ls\u202e' },
        description: 'ls\u202e\nsecond line\x07',
        warnings: ['it writes\r.git/config'],
      }),
      'ls *\ncat\x1b *',
      'ls\u202e',
    )
    expect(shown).not.toMatch(ACTING)
    expect(shown).toContain(
      '? mcp__x\\u001b[8m needs your approval:\n    ls\\u202e\n    second line\\u0007\n',
    )
    expect(shown).toContain('  ! it writes\\u000d.git/config\n')
    expect(shown).toContain('[a] always allow "ls *" and "cat\\u001b *"')
    expect(shown).toContain('[e] always allow exactly "ls\\u202e"')
  })
})

describe('the CLI writes to its terminal in one place', () => {
  it('no module of main/cli writes to process.stdout or stderr but terminal.ts (and the launch and serve files, which print only their own words)', () => {
    const own = new Set(['terminal.ts', 'entry.ts', 'bin.ts', 'serve.ts', 'commands/serve.ts'])
    const dir = join(import.meta.dirname, '../../main/cli')
    const writers = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !own.has(file))
      .filter((file) =>
        /process\.std(out|err)\.write\(/.test(readFileSync(join(dir, file), 'utf8')),
      )
    expect(writers).toEqual([])
  })
})
