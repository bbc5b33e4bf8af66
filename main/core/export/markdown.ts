/**
 * A transcript as GitHub-flavoured Markdown, with the same content as the HTML page: folds are
 * `<details>` blocks, arguments and outputs fenced code, changes `diff` blocks. Text from the log
 * cannot open or close a fold: outside code, anything shaped like an HTML tag in a message is
 * written as `&lt;tag`, and every fence is longer than the longest backtick run inside it.
 */
import { escape } from './html.js'
import type { FileItem, Shown, ToolItem, Transcript, TranscriptItem } from './transcript.js'
import { formatDate, formatTokens, headerFacts, REDACTION_NOTE, statusText } from './words.js'

export function renderMarkdown(transcript: Transcript): string {
  const { header, items } = transcript
  const rows = headerFacts(header).map(([name, value]) => `| ${name} | ${cell(value)} |`)
  const blocks = [
    `# ${inline(header.title)}`,
    `*Bridle transcript*`,
    ['| | |', '|---|---|', ...rows].join('\n'),
    `> **Note:** ${inline(REDACTION_NOTE)}`,
    ...items.map(renderItem),
    `---\n\n*Exported ${formatDate(header.exportedAt)} from session \`${header.sessionId}\`.*`,
  ]
  return `${blocks.join('\n\n')}\n`
}

function renderItem(item: TranscriptItem): string {
  switch (item.kind) {
    case 'turn':
      return `## Turn ${item.turn} · ${formatDate(item.at)}`
    case 'user': {
      const quoted = markdownText(item.text)
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n')
      const attached =
        item.attachments.length === 0
          ? ''
          : `\n>\n> *Attached: ${item.attachments.map((a) => inline(a)).join(', ')}*`
      return `**You**\n\n${quoted}${attached}`
    }
    case 'context':
      return fold('Context Bridle added for the model', shownBlock(item.text, 'text'))
    case 'assistant':
      return `**Assistant**\n\n${markdownText(item.text)}`
    case 'reasoning':
      return fold('Reasoning', markdownText(item.text))
    case 'tool':
      return renderTool(item.call)
    case 'changes': {
      const count = item.files.length
      const title = `#### Files changed in turn ${item.turn} (${count} ${count === 1 ? 'file' : 'files'})`
      return [title, ...item.files.map(renderFile)].join('\n\n')
    }
    case 'checkpoint':
      return fold(
        `Earlier conversation compacted (${formatTokens(item.tokensBefore)} → ${formatTokens(item.tokensAfter)} tokens)`,
        markdownText(item.summary),
      )
    case 'note': {
      const label = item.level === 'error' ? 'Error' : item.level === 'warning' ? 'Warning' : 'Note'
      return `> **${label}:** ${inline(item.text)}`
    }
  }
}

function renderTool(call: ToolItem): string {
  const mcp = call.mcpServer === undefined ? '' : ` (${escape(call.mcpServer)})`
  const summary = `<b>${escape(call.name)}</b>${mcp} <code>${escape(call.summary)}</code> · ${escape(statusText(call))}`
  const parts: string[] = []
  if (call.subagent !== undefined) {
    parts.push(
      `Subagent session \`${call.subagent.sessionId}\`: ${inline(call.subagent.description)}`,
    )
  }
  if (call.refusal !== undefined) parts.push(`> **Warning:** ${inline(call.refusal)}`)
  parts.push('Arguments:', shownBlock(call.args, 'json'))
  if (call.output !== undefined) parts.push('Result:', shownBlock(call.output, 'text'))
  else if (call.error !== undefined) {
    parts.push('Error:', fence(`${call.error.code}: ${call.error.message}`, 'text'))
  }
  parts.push(...call.children.map(renderTool))
  return foldHtml(summary, parts.join('\n\n'))
}

function renderFile(file: FileItem): string {
  const summary = `<code>${escape(file.path)}</code> ${file.status} +${file.additions} −${file.deletions}`
  if (file.patch === undefined) return foldHtml(summary, `*${inline(file.note ?? 'No diff.')}*`)
  return foldHtml(summary, shownBlock(file.patch, 'diff'), true)
}

function fold(summary: string, body: string): string {
  return foldHtml(escape(summary), body)
}

/** A `<details>` block; `summary` is HTML already. The blank lines let Markdown run inside. */
function foldHtml(summary: string, body: string, isOpen = false): string {
  return `<details${isOpen ? ' open' : ''}>\n<summary>${summary}</summary>\n\n${body}\n\n</details>`
}

function shownBlock(shown: Shown, lang: string): string {
  const block = fence(shown.text.replace(/\n$/, ''), lang)
  return shown.cut === undefined ? block : `${block}\n\n*${inline(shown.cut)}*`
}

/** A fenced code block whose fence no backtick run in `text` can close. */
function fence(text: string, lang: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length))
  const ticks = '`'.repeat(Math.max(3, longest + 1))
  return `${ticks}${lang}\n${text}\n${ticks}`
}

/** Plain text inside a line of Markdown: its punctuation cannot format or open a tag. */
function inline(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/[\\`*_[\]<>|~&]/g, '\\$&')
}

function cell(text: string): string {
  return inline(text)
}

/**
 * A message's own Markdown, kept as written, except that outside code spans and fenced blocks a
 * `<` that starts something shaped like a tag (`<script`, `</details`, `<!--`) becomes `&lt;`:
 * shown as the characters it was, never read as HTML.
 */
export function markdownText(text: string): string {
  const out: string[] = []
  let prose: string[] = []
  let fenceOpen: string | undefined
  const flush = () => {
    if (prose.length > 0) out.push(escapeTagsOutsideCodeSpans(prose.join('\n')))
    prose = []
  }
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fenceOpen === undefined) {
      if (marker !== undefined) {
        flush()
        fenceOpen = marker
        out.push(line)
      } else prose.push(line)
    } else {
      out.push(line)
      if (
        marker !== undefined &&
        marker[0] === fenceOpen[0] &&
        marker.length >= fenceOpen.length &&
        line.trim() === marker
      ) {
        fenceOpen = undefined
      }
    }
  }
  flush()
  // A fence the message never closed would swallow what follows it: close it here.
  if (fenceOpen !== undefined) out.push(fenceOpen)
  return out.join('\n')
}

function escapeTagsOutsideCodeSpans(text: string): string {
  let out = ''
  let at = 0
  while (at < text.length) {
    const open = /`+/g
    open.lastIndex = at
    const run = open.exec(text)
    if (run === null) break
    out += escapeTags(text.slice(at, run.index))
    // A code span ends at the next run of exactly as many backticks.
    const close = new RegExp(`(?<!\`)${run[0]}(?!\`)`, 'g')
    close.lastIndex = run.index + run[0].length
    const end = close.exec(text)
    if (end === null) {
      out += run[0]
      at = run.index + run[0].length
    } else {
      out += text.slice(run.index, end.index + run[0].length)
      at = end.index + run[0].length
    }
  }
  return out + escapeTags(text.slice(at))
}

const escapeTags = (text: string) => text.replace(/<(?=[A-Za-z/!?])/g, '&lt;')
