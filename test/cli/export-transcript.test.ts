/**
 * `bridle export --format html|md` on a session made through the real CLI and the scripted model
 * server: a write and an edit (a diff from the snapshots), a command with long output, reasoning,
 * a Markdown answer with a code block, and a message carrying HTML, a fake `sk-` key, the
 * endpoint's key from the environment and the home folder. The page is parsed with parse5.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'
import { parse } from 'parse5'
import type { DefaultTreeAdapterMap } from 'parse5'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliArgv, runCli } from '../fixtures/cli.js'
import { ENV_KEY, makeTranscriptSession, SK_KEY } from '../fixtures/transcript-session.js'
import type { TranscriptSession } from '../fixtures/transcript-session.js'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

let made: TranscriptSession
let home: string
let data: string
let sessionId: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  made = await makeTranscriptSession()
  ;({ home, data, sessionId, env } = made)
}, 60_000)

afterAll(async () => {
  await made.dispose()
})

const exportAs = async (format: string, ...rest: string[]) => {
  const result = await runCli(
    cliArgv({ home: data }, 'export', sessionId, '--format', format, ...rest),
    { env },
  )
  expect(result.status, result.stderr).toBe(0)
  return result.stdout
}

function elements(node: Node): Element[] {
  const own = 'tagName' in node ? [node] : []
  const children = 'childNodes' in node ? node.childNodes.flatMap(elements) : []
  return [...own, ...children]
}

const textOf = (node: Node): string =>
  node.nodeName === '#text'
    ? (node as DefaultTreeAdapterMap['textNode']).value
    : 'childNodes' in node
      ? node.childNodes.map(textOf).join('')
      : ''

const classOf = (el: Element) => el.attrs.find((a) => a.name === 'class')?.value ?? ''
const byClass = (all: Element[], tag: string, cls: string) =>
  all.filter((el) => el.tagName === tag && classOf(el).split(' ').includes(cls))

describe('bridle export --format html', () => {
  it('is one page with no script, no key and no home path, whatever the messages held', async () => {
    const html = await exportAs('html')
    const all = elements(parse(html))
    expect(all.filter((el) => el.tagName === 'script')).toEqual([])
    // Nothing loads from anywhere: no external resources, and a policy that forbids them.
    expect(all.filter((el) => el.tagName === 'link')).toEqual([])
    const csp = all.find((el) => el.attrs.some((a) => a.value === 'Content-Security-Policy'))
    expect(csp?.attrs.find((a) => a.name === 'content')?.value).toContain("default-src 'none'")
    for (const secret of [SK_KEY, ENV_KEY, home]) expect(html).not.toContain(secret)
    expect(html).toContain('[redacted]')
    expect(html).toContain('~/my-project')
    expect(html).toContain('best-effort')

    // The hostile text is there, as text: inside the user's message, not as elements.
    const [user] = byClass(all, 'section', 'user')
    expect(user && textOf(user)).toContain('<script>alert("pwned")</script> and </details></pre>')
    // Every fold closes where the transcript closes it: the message's </details> closed none.
    const body = all.find((el) => el.tagName === 'main')
    expect(body?.childNodes.filter((n) => n.nodeName === 'section').length).toBeGreaterThan(1)
  })

  it('has the header facts, the reasoning and the tools folded, the answer rendered from Markdown', async () => {
    const html = await exportAs('html')
    const all = elements(parse(html))
    const facts = textOf(all.find((el) => el.tagName === 'dl') as Element)
    expect(facts).toContain('my-project')
    expect(facts).toContain('scripted')
    expect(facts).toContain(sessionId)

    const reasoning = byClass(all, 'details', 'reasoning')
    expect(reasoning).toHaveLength(1)
    expect(textOf(reasoning[0] as Element)).toContain('<b>not bold</b> and </details>')

    const tools = byClass(all, 'details', 'tool')
    expect(tools.map((el) => classOf(el))).toEqual(['tool ok', 'tool ok', 'tool ok'])
    // Folded: no tool starts open.
    expect(tools.every((el) => !el.attrs.some((a) => a.name === 'open'))).toBe(true)
    const summaries = tools.map((el) => textOf(el.childNodes[0] as Node))
    expect(summaries[0]).toMatch(/^write notes\.md ok/)
    expect(summaries[1]).toMatch(/^edit notes\.md ok/)
    expect(summaries[2]).toMatch(/^bash printf .* ok · exit 0$/)
    const bash = textOf(tools[2] as Element)
    expect(bash).toContain('home is ~/sub')
    // 152 lines of output: 80 shown, the rest cut with a note.
    expect(bash).toContain('72 more lines not shown')
    expect(bash).not.toContain('\n150\n')

    const answer = byClass(all, 'section', 'assistant')
    expect(answer).toHaveLength(1)
    const answerEls = elements(answer[0] as Element)
    expect(answerEls.some((el) => el.tagName === 'strong')).toBe(true)
    const code = answerEls.find((el) => el.tagName === 'code' && classOf(el) === 'language-ts')
    expect(code && textOf(code)).toBe("const tag = '<div>'\n")
    expect(textOf(answer[0] as Element)).toContain('</details><script>bad()</script>')
    expect(answerEls.some((el) => el.tagName === 'table')).toBe(true)
    // The image is a link, never fetched.
    expect(all.filter((el) => el.tagName === 'img')).toEqual([])
    const image = answerEls.find((el) => classOf(el) === 'image-link')
    expect(image && textOf(image)).toBe('[image: tracker]')
    expect(image?.attrs.find((a) => a.name === 'href')?.value).toMatch(/\/track\.png$/)
  })

  it('shows the turn’s file change as a diff from the snapshots', async () => {
    const all = elements(parse(await exportAs('html')))
    const files = byClass(all, 'details', 'file')
    expect(files).toHaveLength(1)
    const file = files[0] as Element
    expect(textOf(file.childNodes[0] as Node)).toContain('notes.md added +3 −0')
    const added = byClass(elements(file), 'span', 'd-add').map(textOf)
    expect(added).toEqual(['+# Notes', '+line one', '+line 2, edited'])
  })

  it('writes --out atomically, and refuses an unknown format in plain words', async () => {
    const out = join(home, 'transcript.html')
    await exportAs('html', '--out', out)
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/)
    const bad = await runCli(cliArgv({ home: data }, 'export', sessionId, '--format', 'pdf'))
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--format must be one of jsonl, html, md, not "pdf"')
  })
})

describe('bridle export --format md', () => {
  it('has the same facts as GitHub-flavoured Markdown, folds balanced and nothing escaping', async () => {
    const md = await exportAs('md')
    for (const secret of [SK_KEY, ENV_KEY, home]) expect(md).not.toContain(secret)
    expect(md).toContain('~/my-project')
    expect(md).toContain('| Project | my-project |')
    expect(md).toContain('best-effort')
    // Our folds: the turn's context, reasoning, three tools, one file. The messages' own tags
    // are not tags.
    expect(md.match(/<details( open)?>/g)).toHaveLength(6)
    expect(md.match(/<\/details>/g)).toHaveLength(6)
    // Written `&lt;script` or `\\<script`: both show the characters, neither is a tag.
    expect(md).not.toMatch(/(?<!\\)<(script|\/pre)/i)
    expect(md).toContain('&lt;script>alert("pwned")&lt;/script> and &lt;/details>&lt;/pre>')
    expect(md).toContain('<summary><b>bash</b> <code>printf')
    expect(md).toContain('```diff\n--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,3 @@\n+# Notes\n')
    // The answer's own code block is kept as written.
    expect(md).toContain("```ts\nconst tag = '<div>'\n```")
    expect(md).toContain('home is ~/sub')
    expect(md).toContain('72 more lines not shown')
  })

  it('rendered with raw HTML on (as GitHub does, before it sanitises), keeps its structure', async () => {
    const md = await exportAs('md')
    const html = micromark(md, {
      allowDangerousHtml: true,
      extensions: [gfm()],
      htmlExtensions: [gfmHtml()],
    })
    const all = elements(parse(html))
    expect(all.filter((el) => el.tagName === 'script')).toEqual([])
    // Every fold is one of ours, and the message text sits in the page as text.
    const folds = all.filter((el) => el.tagName === 'details')
    const summaryOf = (el: Element) =>
      textOf(el.childNodes.find((n) => n.nodeName === 'summary') as Node)
    expect(folds.map((el) => summaryOf(el).split(' ')[0])).toEqual([
      'Context',
      'Reasoning',
      'write',
      'edit',
      'bash',
      'notes.md',
    ])
    const quote = all.find((el) => el.tagName === 'blockquote' && textOf(el).includes('Write'))
    expect(quote && textOf(quote)).toContain('<script>alert("pwned")</script> and </details></pre>')
    const reasoning = folds[1] as Element
    expect(textOf(reasoning)).toContain('<b>not bold</b> and </details> in my thoughts.')
    // The table, the code and the diff came through as Markdown.
    expect(all.some((el) => el.tagName === 'table')).toBe(true)
    expect(all.some((el) => classOf(el) === 'language-diff')).toBe(true)
  })
})
