import type { Element, ElementContent, Root, RootContent } from 'hast'
import { common, createLowlight } from 'lowlight'

/**
 * One highlighter for the whole app. rehype-highlight builds a new one (registering ~40
 * grammars) each time a message is rendered, which was most of the cost of scrolling a long
 * chat; this plugin shares a single instance.
 */
const lowlight = createLowlight(common)

const languageOf = (code: Element): string | undefined => {
  const classes = code.properties['className']
  if (!Array.isArray(classes)) return undefined
  for (const name of classes) {
    if (typeof name === 'string' && name.startsWith('language-')) return name.slice(9)
  }
  return undefined
}

const textOf = (nodes: readonly (RootContent | ElementContent)[]): string =>
  nodes
    .map((node) =>
      node.type === 'text' ? node.value : node.type === 'element' ? textOf(node.children) : '',
    )
    .join('')

function visit(node: Root | Element): void {
  for (const child of node.children) {
    if (child.type !== 'element') continue
    const code = child.tagName === 'pre' ? child.children[0] : undefined
    if (code?.type === 'element' && code.tagName === 'code') highlightCode(code)
    else visit(child)
  }
}

/** Only fences that name a known language are highlighted: guessing runs every grammar. */
function highlightCode(code: Element): void {
  const language = languageOf(code)
  if (language === undefined || !lowlight.registered(language)) return
  const tree = lowlight.highlight(language, textOf(code.children))
  code.children = tree.children as ElementContent[]
  const classes = Array.isArray(code.properties['className']) ? code.properties['className'] : []
  code.properties['className'] = ['hljs', ...classes]
}

/** A rehype plugin: highlights `pre > code.language-*` in place. */
export function rehypeSharedHighlight() {
  return (tree: Root) => visit(tree)
}
