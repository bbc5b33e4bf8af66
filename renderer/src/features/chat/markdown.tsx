import { memo, useRef, useState } from 'react'
import type { ComponentProps } from 'react'
import Markdown from 'react-markdown'
import type { Components } from 'react-markdown'
import rehypeHighlight from 'rehype-highlight'
import remarkGfm from 'remark-gfm'

/**
 * Model text as markdown: GFM (tables, task lists, strikethrough) and highlighted code blocks
 * with a copy button. react-markdown builds React elements from a syntax tree and drops raw HTML
 * (`skipHtml`), so model text never reaches the DOM as markup: nothing to sanitise, nothing the
 * CSP would have to stop. Re-rendered per delta while streaming; unfinished markdown (an open
 * code fence) simply renders as what it is so far.
 */
export const MarkdownText = memo(function MarkdownText({ text }: { readonly text: string }) {
  return (
    <div className="md">
      <Markdown remarkPlugins={REMARK} rehypePlugins={REHYPE} components={COMPONENTS} skipHtml>
        {text}
      </Markdown>
    </div>
  )
})

const REMARK = [remarkGfm]
/** Only fences that name their language are highlighted: guessing runs every grammar per delta. */
const REHYPE = [rehypeHighlight]

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
