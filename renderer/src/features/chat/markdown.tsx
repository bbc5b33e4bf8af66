import { memo, useMemo, useRef, useState } from 'react'
import type { ComponentProps, ReactElement } from 'react'
import Markdown from 'react-markdown'
import type { Components } from 'react-markdown'
import type { PluggableList } from 'unified'
import rehypeKatex from 'rehype-katex'
import remarkGfm from 'remark-gfm'
import remarkMath from 'remark-math'
import 'katex/dist/katex.min.css'
import { rehypeSharedHighlight } from './highlight'
import { guardDollars } from './math-guard'

/**
 * Model text as markdown: GFM (tables, task lists, strikethrough) and highlighted code blocks
 * with a copy button. react-markdown builds React elements from a syntax tree and drops raw HTML
 * (`skipHtml`), so model text never reaches the DOM as markup: nothing to sanitise, nothing the
 * CSP would have to stop. Re-rendered per delta while streaming; unfinished markdown (an open
 * code fence) simply renders as what it is so far.
 *
 * Math (`$x^2$`, `$$…$$`) is rendered by KaTeX at build time of the tree: its output is elements
 * whose inline styles React sets through the CSSOM (allowed by the CSP), its stylesheet and fonts
 * are bundled files (`font-src 'self'`). A dollar amount is not math (math-guard.ts).
 */
export const MarkdownText = memo(function MarkdownText({ text }: { readonly text: string }) {
  const element = useMemo(() => renderMarkdown(text), [text])
  return <div className="md">{element}</div>
})

const REMARK = [remarkGfm, remarkMath]
/** KaTeX never throws on a bad formula: it shows the source in the error colour instead. */
const REHYPE: PluggableList = [
  [rehypeKatex, { throwOnError: false, strict: 'ignore' }],
  rehypeSharedHighlight,
]

/**
 * Rendered messages by text. Scrolling a long chat mounts and unmounts rows all the time, and
 * parsing markdown is most of a row's cost; the element tree of a text never changes, so a row
 * scrolled back into view reuses it. Least recently used first out; streaming text passes
 * through it too and simply ages out. A few hundred screens' worth: the trees are most of what
 * a long chat holds in memory beside its events, and the chat's window of events is bounded.
 */
const rendered = new Map<string, ReactElement>()
const RENDERED_MAX = 500

/**
 * A sample with each construct the parser and highlighter set up on first use (lists, code of a
 * common language, a table): parsed once when the page is first idle, so the first session
 * opened does not pay for that set-up while its rows are waiting to show. No math: KaTeX's
 * output is parsed as HTML, which the page's CSP reports on even when it is never shown.
 */
const WARM_UP_SAMPLE = [
  'A **warm-up** with `code`:',
  '- one\n- two',
  '```ts\nexport const x: number = 1\n```',
  '| a | b |\n| --- | ---: |\n| 1 | 2 |',
].join('\n\n')

// Not in the unit tests' Node, which import this file too.
if ('requestIdleCallback' in globalThis) {
  requestIdleCallback(() => {
    renderMarkdown(WARM_UP_SAMPLE)
    rendered.delete(WARM_UP_SAMPLE)
  })
}

/**
 * Parses `text` into the cache ahead of its row (a row about to scroll into view), so the frame
 * that shows the row only builds its elements. Returns at once when the text is cached.
 */
export function warmMarkdown(text: string): void {
  if (!rendered.has(text)) renderMarkdown(text)
}

/** `Markdown` is a synchronous component without hooks, so it can be called to build a tree. */
function renderMarkdown(text: string): ReactElement {
  const cached = rendered.get(text)
  if (cached !== undefined) {
    rendered.delete(text)
    rendered.set(text, cached)
    return cached
  }
  const element = Markdown({
    children: guardDollars(text),
    remarkPlugins: REMARK,
    rehypePlugins: REHYPE,
    components: COMPONENTS,
    skipHtml: true,
  })
  rendered.set(text, element)
  if (rendered.size > RENDERED_MAX) {
    const oldest = rendered.keys().next()
    if (oldest.done !== true) rendered.delete(oldest.value)
  }
  return element
}

function CodeBlock({ children, node: _node, ...rest }: ComponentProps<'pre'> & { node?: unknown }) {
  const pre = useRef<HTMLPreElement>(null)
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>()
  const copy = () => {
    const text = pre.current?.textContent ?? ''
    navigator.clipboard.writeText(text).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    )
    setTimeout(() => setCopied(undefined), 1500)
  }
  return (
    <div className="code-block">
      <button type="button" className="icon copy-code" onClick={copy} aria-label="Copy code">
        {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
      <pre ref={pre} {...rest}>
        {children}
      </pre>
    </div>
  )
}

/** Tables scroll on their own instead of widening the whole chat. */
function Table({ children, node: _node, ...rest }: ComponentProps<'table'> & { node?: unknown }) {
  return (
    <div className="md-table">
      <table {...rest}>{children}</table>
    </div>
  )
}

const COMPONENTS: Components = { pre: CodeBlock, table: Table }
