import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { MarkdownText } from '../../renderer/src/features/chat/markdown'
import { guardDollars } from '../../renderer/src/features/chat/math-guard'

const html = (text: string): string => renderToStaticMarkup(createElement(MarkdownText, { text }))

describe('guardDollars: money is not math', () => {
  it('escapes dollar amounts and leaves formulas alone', () => {
    expect(guardDollars('$5 and $10')).toBe('\\$5 and \\$10')
    expect(guardDollars('It costs $5, so $x$ is cheap')).toBe('It costs \\$5, so $x$ is cheap')
    expect(guardDollars('$x^2$ and $$a+b$$')).toBe('$x^2$ and $$a+b$$')
    expect(guardDollars('already \\$5')).toBe('already \\$5')
  })

  it('leaves code spans and fenced code as they are', () => {
    expect(guardDollars('run `echo $HOME` for $5')).toBe('run `echo $HOME` for \\$5')
    const fenced = '```sh\necho $1 $2\n```\n$3'
    expect(guardDollars(fenced)).toBe('```sh\necho $1 $2\n```\n\\$3')
  })
})

describe('MarkdownText: math through KaTeX', () => {
  it('renders inline and display math with KaTeX', () => {
    const inline = html('Area: $x^2$.')
    expect(inline).toContain('class="katex"')
    expect(inline).toContain('<annotation encoding="application/x-tex">x^2</annotation>')
    const display = html('$$\n\\int_0^1 x\\,dx\n$$')
    expect(display).toContain('katex-display')
  })

  it('keeps the backslash of \\, inside math', () => {
    expect(html('$a\\,b$')).toContain('<annotation encoding="application/x-tex">a\\,b</annotation>')
  })

  it('shows dollar amounts as text, not math', () => {
    const out = html('$5 and $10')
    expect(out).not.toContain('katex')
    expect(out).toContain('$5 and $10')
  })

  it('leaves dollars in code alone', () => {
    const out = html('`echo $HOME $PATH`')
    expect(out).not.toContain('katex')
    expect(out).toContain('echo $HOME $PATH')
  })
})
