/**
 * A transcript as one self-contained HTML page: inline CSS with light and dark colours
 * (`prefers-color-scheme`), no script, nothing fetched (a Content-Security-Policy forbids both,
 * so even an image link in a message stays unloaded). Every text from the log is escaped; the
 * model's Markdown goes through micromark with raw HTML off, which escapes tags in it and drops
 * `javascript:` links. Tool calls, reasoning and long contexts are folded with `<details>`.
 */
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'
import type { FileItem, Shown, ToolItem, Transcript, TranscriptItem } from './transcript.js'
import { formatDate, formatTokens, headerFacts, REDACTION_NOTE, statusText } from './words.js'

/** Diffs longer than this many lines start folded. */
const OPEN_DIFF_LINES = 80

export function renderHtml(transcript: Transcript): string {
  const { header, items } = transcript
  const facts = headerFacts(header)
    .map(([name, value]) => `<div><dt>${escape(name)}</dt><dd>${escape(value)}</dd></div>`)
    .join('\n')
  const body = items.map(renderItem).join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="Bridle">
<title>${escape(header.title)} · Bridle transcript</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header class="head">
<p class="kicker">Bridle transcript</p>
<h1>${escape(header.title)}</h1>
<dl class="facts">
${facts}
</dl>
<p class="redaction">${escape(REDACTION_NOTE)}</p>
</header>
${body}
<footer class="foot">Exported ${escape(formatDate(header.exportedAt))} from session <code>${escape(header.sessionId)}</code>.</footer>
</main>
</body>
</html>
`
}

function renderItem(item: TranscriptItem): string {
  switch (item.kind) {
    case 'turn':
      return `<h2 class="turn" id="turn-${item.turn}">Turn ${item.turn} <time>${escape(formatDate(item.at))}</time></h2>`
    case 'user': {
      const attached =
        item.attachments.length === 0
          ? ''
          : `<p class="attached">Attached: ${item.attachments.map((a) => `<code>${escape(a)}</code>`).join(', ')}</p>`
      return `<section class="msg user"><p class="who">You</p><div class="plain">${escape(item.text)}</div>${attached}</section>`
    }
    case 'context':
      return `<details class="fold context"><summary>Context Bridle added for the model</summary>${pre(item.text)}</details>`
    case 'assistant':
      return `<section class="msg assistant"><p class="who">Assistant</p><div class="md">${markdown(item.text)}</div></section>`
    case 'reasoning':
      return `<details class="fold reasoning"><summary>Reasoning</summary><div class="md">${markdown(item.text)}</div></details>`
    case 'tool':
      return renderTool(item.call)
    case 'changes': {
      const files = item.files.map(renderFile).join('\n')
      const count = item.files.length
      return `<section class="changes"><h3>Files changed in turn ${item.turn} <span class="muted">(${count} ${count === 1 ? 'file' : 'files'})</span></h3>\n${files}</section>`
    }
    case 'checkpoint':
      return `<details class="fold checkpoint"><summary>Earlier conversation compacted (${formatTokens(item.tokensBefore)} → ${formatTokens(item.tokensAfter)} tokens)</summary><div class="md">${markdown(item.summary)}</div></details>`
    case 'note':
      return `<p class="note ${item.level}">${escape(item.text)}</p>`
  }
}

function renderTool(call: ToolItem): string {
  const status = statusText(call)
  const mcp =
    call.mcpServer === undefined ? '' : ` <span class="muted">(${escape(call.mcpServer)})</span>`
  const subagent =
    call.subagent === undefined
      ? ''
      : `<p class="subagent">Subagent session <code>${escape(call.subagent.sessionId)}</code>: ${escape(call.subagent.description)}</p>`
  const refusal =
    call.refusal === undefined ? '' : `<p class="note warning">${escape(call.refusal)}</p>`
  const result =
    call.output !== undefined
      ? `<p class="label">Result</p>${pre(call.output)}`
      : call.error !== undefined
        ? `<p class="label">Error</p><pre class="error">${escape(`${call.error.code}: ${call.error.message}`)}</pre>`
        : ''
  const children = call.children.map(renderTool).join('\n')
  return `<details class="tool ${call.status}" id="call-${escape(call.callId)}"><summary><span class="tool-name">${escape(call.name)}</span>${mcp} <code class="summary">${escape(call.summary)}</code> <span class="status">${escape(status)}</span></summary>
<div class="tool-body">${subagent}${refusal}<p class="label">Arguments</p>${pre(call.args)}${result}${children}</div></details>`
}

function renderFile(file: FileItem): string {
  const counts = `<span class="add">+${file.additions}</span> <span class="del">−${file.deletions}</span>`
  const head = `<summary><code>${escape(file.path)}</code> <span class="badge ${file.status}">${file.status}</span> ${counts}</summary>`
  if (file.patch === undefined) {
    return `<details class="file">${head}<p class="muted">${escape(file.note ?? 'No diff.')}</p></details>`
  }
  const lines = file.patch.text.replace(/\n$/, '').split('\n')
  const open = lines.length <= OPEN_DIFF_LINES ? ' open' : ''
  // Block spans, one a line: a newline between them would show as a blank line in the <pre>.
  const diff = lines
    .map((line) => `<span class="${diffClass(line)}">${escape(line)}</span>`)
    .join('')
  const cutNote = file.patch.cut === undefined ? '' : `<p class="cut">${escape(file.patch.cut)}</p>`
  return `<details class="file"${open}>${head}<pre class="diff">${diff}</pre>${cutNote}</details>`
}

function diffClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('\\')) return 'd-meta'
  if (line.startsWith('@@')) return 'd-hunk'
  if (line.startsWith('+')) return 'd-add'
  if (line.startsWith('-')) return 'd-del'
  return 'd-same'
}

function pre(shown: Shown): string {
  const cutNote = shown.cut === undefined ? '' : `<p class="cut">${escape(shown.cut)}</p>`
  return `<pre>${escape(shown.text)}</pre>${cutNote}`
}

/**
 * GitHub-flavoured Markdown to HTML; raw HTML in it is escaped, dangerous links dropped. Images
 * become links: a page that fetched them would tell their server who read the transcript (the
 * CSP blocks that too, but not every viewer honours a CSP).
 */
function markdown(text: string): string {
  const html = micromark(text, { extensions: [gfm()], htmlExtensions: [gfmHtml()] })
  // micromark writes every image as exactly this, its attributes already escaped.
  return html.replace(/<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g, (_, src, alt) =>
    src === ''
      ? `<span class="muted">[image: ${alt}]</span>`
      : `<a class="image-link" href="${src}">[image: ${alt || 'untitled'}]</a>`,
  )
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text made safe for HTML content and quoted attributes. */
export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

const STYLE = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--user:#eef4ff;
--add:#dafbe1;--add-fg:#116329;--del:#ffebe9;--del-fg:#a40e26;--hunk:#ddf4ff;--hunk-fg:#0550ae;--warn:#9a6700;--err:#cf222e;--ok:#1a7f37;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--user:#121d2f;
--add:rgba(46,160,67,.18);--add-fg:#7ee2a0;--del:rgba(248,81,73,.18);--del-fg:#ffa198;--hunk:rgba(56,139,253,.16);--hunk-fg:#9ecbff;--warn:#d29922;--err:#f85149;--ok:#3fb950;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:920px;margin:0 auto;padding:32px 24px 48px}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 12px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
:not(pre)>code{background:var(--panel);border-radius:4px;padding:.1em .35em}
.head{padding-bottom:4px}
.kicker{margin:0;color:var(--muted);font-size:12px;letter-spacing:.06em;text-transform:uppercase}
h1{font-size:26px;line-height:1.25;margin:4px 0 12px;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:6px 20px;margin:0 0 12px}
.facts div{min-width:0}.facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;overflow-wrap:anywhere}
.redaction{margin:0;font-size:13px;color:var(--muted);border-left:3px solid var(--warn);padding:2px 0 2px 10px}
h2.turn{font-size:13px;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;margin:28px 0 8px;padding-top:12px;border-top:1px solid var(--line);display:flex;gap:10px;align-items:baseline}
h2.turn time{font-weight:400;text-transform:none;letter-spacing:0}
.msg{margin:10px 0}.who{margin:0 0 2px;font-size:12px;font-weight:600;color:var(--muted)}
.user .plain{background:var(--user);border:1px solid var(--line);border-radius:8px;padding:10px 14px;white-space:pre-wrap;overflow-wrap:anywhere}
.attached{font-size:13px;color:var(--muted);margin:4px 0 0}
.md{overflow-wrap:anywhere}.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--line);padding:4px 8px}
.md blockquote{margin:8px 0;padding:0 12px;border-left:3px solid var(--line);color:var(--muted)}
details{margin:6px 0}
summary{cursor:pointer;overflow-wrap:anywhere}
.fold>summary{color:var(--muted);font-size:13px}
.fold[open]>summary{margin-bottom:4px}
.reasoning .md,.checkpoint .md{border-left:3px solid var(--line);padding-left:12px;color:var(--muted)}
.tool{border:1px solid var(--line);border-radius:6px;background:var(--bg)}
.tool>summary{padding:6px 10px;font-size:13px;display:block}
.tool>summary::before{content:"▸";display:inline-block;width:1em;color:var(--muted)}
.tool[open]>summary::before{content:"▾"}
.tool[open]>summary{border-bottom:1px solid var(--line)}
.tool-name{font-weight:600}
.tool .summary{background:none;padding:0}
.status{float:right;color:var(--muted);margin-left:8px}
.tool.ok .status{color:var(--ok)}.tool.failed .status{color:var(--err)}
.tool-body{padding:4px 10px 8px}.tool-body .tool{margin:8px 0}
.label{margin:6px 0 0;font-size:12px;color:var(--muted);font-weight:600}
pre.error{color:var(--err)}
.cut{margin:0;font-size:12px;color:var(--muted);font-style:italic}
.subagent{margin:6px 0;font-size:13px}
.changes{margin:14px 0}.changes h3{font-size:14px;margin:0 0 6px}
.file{border:1px solid var(--line);border-radius:6px}
.file>summary{padding:6px 10px;font-size:13px}
.file>p{margin:0;padding:0 10px 8px;font-size:13px}
.file pre.diff{margin:0;border:0;border-top:1px solid var(--line);border-radius:0 0 6px 6px;padding:6px 0}
.diff span{display:block;padding:0 12px;min-height:1.4em}
.d-add{background:var(--add);color:var(--add-fg)}.d-del{background:var(--del);color:var(--del-fg)}
.d-hunk{background:var(--hunk);color:var(--hunk-fg)}.d-meta{color:var(--muted)}
.add{color:var(--ok)}.del{color:var(--err)}
.badge{font-size:11px;border:1px solid var(--line);border-radius:10px;padding:0 7px;color:var(--muted)}
.muted{color:var(--muted);font-weight:400}
.note{font-size:13px;margin:8px 0;padding:4px 10px;border-left:3px solid var(--line);color:var(--muted)}
.note.warning{border-color:var(--warn)}.note.error{border-color:var(--err);color:var(--err)}
.foot{margin-top:32px;padding-top:12px;border-top:1px solid var(--line);font-size:12px;color:var(--muted)}
`
