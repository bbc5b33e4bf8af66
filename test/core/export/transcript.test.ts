/**
 * Transcripts from logs written through real Sessions on a real SQLite file: a fork flattened
 * with its parent's checkpoint and interrupted call, a subagent's `task` call, a `run_code`
 * program's inner calls, a refused call, errors and notices; and the Markdown escaping alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse } from 'parse5'
import { createRedactor, exportTranscript } from '../../../main/core/export/index.js'
import type { TranscriptFormat } from '../../../main/core/export/index.js'
import { markdownText } from '../../../main/core/export/markdown.js'
import { cut } from '../../../main/core/export/transcript.js'
import { forkSession, Session } from '../../../main/core/log/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'
import { fake } from '../../fixtures/fake-secrets.js'

let home: TempHome
let store: Store
let now = 1_700_000_000_000
const clock = () => (now += 1000)

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

const render = (sessionId: string, format: TranscriptFormat) =>
  exportTranscript(store, sessionId, format, {
    redact: createRedactor({ home: '/home/dev' }),
    now: 1_800_000_000_000,
  }).text

/** One turn whose single step calls `calls` (each appended by `body`), then answers. */
function toolTurn(session: Session, text: string, body: () => void, reply = 'done'): void {
  session.append('turn/start', {})
  session.append('step/start', {})
  session.append('user/message', { content: text })
  const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
  session.append('request/start', {
    provider: 'test',
    model: 'model-a',
    params: {},
    headerSeq: header.seq,
  })
  body()
  session.append('step/end', { reason: 'tool-calls' })
  session.append('step/start', {})
  session.append('request/start', {
    provider: 'test',
    model: 'model-a',
    params: {},
    headerSeq: header.seq,
  })
  session.append('assistant/message', { blocks: [{ type: 'text', text: reply }], finish: 'stop' })
  session.append('step/end', { reason: 'completed' })
  session.append('turn/end', { reason: 'completed' })
}

const toolBlock = (callId: string, name: string, args: Record<string, unknown>) =>
  ({ type: 'tool-call', callId, name, args: JSON.stringify(args) }) as const

describe('exportTranscript', () => {
  it('flattens a fork: the parent’s turns, its checkpoint and the call the fork cut', () => {
    const root = Session.create(store, { projectDir: '/home/dev/shop', title: 'Fix it', clock })
    appendTurn(root, 'read two files', [{ calls: ['a'], reply: 'reading' }, { reply: 'read' }])
    const visible = root.slice().filter((e) => e.type === 'user/message')
    root.append('compaction/checkpoint', {
      fromSeq: visible[0]?.seq ?? 0,
      toSeq: root.slice().findLast((e) => e.type === 'assistant/message')?.seq ?? 0,
      summary: 'The user asked for **a**; it was read.',
      tokensBefore: 12_300,
      tokensAfter: 450,
    })
    const turn2 = root.length
    appendTurn(root, 'now run it', [{ calls: ['c'], reply: 'running' }, { reply: 'ran' }])
    const forkSeq = root.slice(turn2).find((e) => e.type === 'tool/result')?.seq ?? -1
    root.close()
    const childId = forkSession(store, root.id, forkSeq, { clock })
    const child = Session.open(store, childId, { mode: 'write', clock })
    appendTurn(child, 'try again', [{ reply: 'it works' }])
    child.close()

    const md = render(childId, 'md')
    // A fork starts untitled: its history's first words name the transcript.
    expect(md.split('\n')[0]).toBe('# read two files')
    expect(md).toContain(`| Forked from | ${root.id} at event ${forkSeq} |`)
    expect(md).toContain('| Project | shop |')
    expect(md).not.toContain('/home/dev')
    expect(md).toMatch(/read two files[\s\S]*now run it[\s\S]*try again[\s\S]*it works/)
    expect(md).toContain('<summary>Earlier conversation compacted (12.3k → 450 tokens)</summary>')
    expect(md).toContain('The user asked for **a**; it was read.')
    expect(md).toContain('<summary><b>read</b> <code>a</code> · failed: TOOL_OUTCOME_UNKNOWN')
    expect(md).toContain('> **Warning:** Turn 2 ended: interrupted by fork.')
    // A fork continues its parent's numbering.
    expect(md.match(/^## Turn \d/gm)).toEqual(['## Turn 1', '## Turn 2', '## Turn 3'])
  })

  it('names a subagent’s session, nests a program’s calls, says who refused a call and shows errors and notices', () => {
    const session = Session.create(store, { projectDir: '/p/app', title: 'Many things', clock })
    toolTurn(session, 'do many things', () => {
      session.append('assistant/message', {
        blocks: [
          toolBlock('t1', 'task', { description: 'survey the tests' }),
          toolBlock('t2', 'task', { description: 'check the docs' }),
          toolBlock('r1', 'run_code', { description: 'count files', code: 'read("a")' }),
          toolBlock('w1', 'write', { path: 'x.txt', content: 'x' }),
        ],
        finish: 'tool-calls',
      })
      session.append('tool/call', {
        callId: 't1',
        name: 'task',
        args: { description: 'survey the tests' },
      })
      session.append('subagent/started', {
        callId: 't1',
        sessionId: 'child-session-1',
        description: 'survey the tests',
      })
      session.append('tool/result', { callId: 't1', ok: true, output: 'The tests pass.' })
      // An older log: no subagent/started, the child named by the result only.
      session.append('tool/call', {
        callId: 't2',
        name: 'task',
        args: { description: 'check the docs' },
      })
      session.append('tool/result', {
        callId: 't2',
        ok: true,
        output: 'Fine.',
        metadata: { subagent: 'child-session-2' },
      })
      session.append('tool/call', { callId: 'r1', name: 'run_code', args: { code: 'read("a")' } })
      session.append('tool/call', {
        callId: 'r1.1',
        name: 'read',
        args: { path: 'a' },
        parent: { callId: 'r1' },
      })
      session.append('tool/result', {
        callId: 'r1.1',
        ok: true,
        output: 'alpha',
        parent: { callId: 'r1' },
      })
      session.append('tool/result', { callId: 'r1', ok: true, output: '1 file' })
      // Asked before it starts; refused, it never does.
      session.append('approval/requested', {
        callId: 'w1',
        tool: 'write',
        description: 'write x.txt',
      })
      session.append('approval/decided', {
        callId: 'w1',
        decision: 'deny',
        by: 'user',
        reason: 'not that file',
      })
      session.append('tool/result', {
        callId: 'w1',
        ok: false,
        error: { code: 'APPROVAL_DENIED', message: 'The user said no: not that file' },
      })
      session.append('error', {
        scope: 'step',
        code: 'STREAM_FAILED',
        message: 'the server hung up',
      })
      session.append('notice', { level: 'warning', code: 'SANDBOX_OFF', message: 'No sandbox.' })
    })
    session.close()

    const html = render(session.id, 'html')
    expect(parse(html)).toBeTruthy()
    expect(html).toContain('Subagent session <code>child-session-1</code>: survey the tests')
    expect(html).toContain('Subagent session <code>child-session-2</code>: check the docs')
    // The inner read sits inside the run_code card, not beside it.
    const runCode = html.slice(html.indexOf('id="call-r1"'), html.indexOf('id="call-w1"'))
    expect(runCode).toContain('id="call-r1.1"')
    expect(runCode).toContain('ok · 1 inner call')
    expect(html).toContain('Refused by the user: not that file')
    expect(html).toContain('failed: APPROVAL_DENIED')
    expect(html).toContain(
      '<p class="note error">Error (step) STREAM_FAILED: the server hung up</p>',
    )
    expect(html).toContain('<p class="note warning">No sandbox.</p>')
    expect(html).toContain('<dd>model-a</dd>')

    const md = render(session.id, 'md')
    expect(md).toContain('Subagent session `child-session-1`: survey the tests')
    expect(md).toContain('> **Error:** Error (step) STREAM\\_FAILED: the server hung up')
  })
})

describe('a call id used again in a later step', () => {
  it('is a call of its own, with its own arguments and result', () => {
    const session = Session.create(store, { projectDir: '/p/app', title: 'Twice', clock })
    appendTurn(session, 'read twice', [{ calls: ['call_0'], reply: 'once' }, { reply: 'done' }])
    appendTurn(session, 'again', [{ calls: ['call_0'], reply: 'twice' }, { reply: 'done' }])
    session.close()
    const md = render(session.id, 'md')
    expect(md.match(/<summary><b>read<\/b> <code>a<\/code> · ok<\/summary>/g)).toHaveLength(2)
    expect(md.match(/contents for call_0/g)).toHaveLength(2)
  })
})

describe('a call summary clipped inside a key', () => {
  it('never shows the key’s beginning: the text is redacted before it is clipped', () => {
    const key = fake('sk', '-proj-0123456789abcdefghij0123456789')
    const command = `${'echo padding && '.repeat(4)}curl -H "Authorization: Bearer ${key}" x`
    const session = Session.create(store, { projectDir: '/p/app', title: 'Curl', clock })
    toolTurn(session, 'fetch it', () => {
      session.append('assistant/message', {
        blocks: [toolBlock('b1', 'bash', { command })],
        finish: 'tool-calls',
      })
      session.append('tool/call', { callId: 'b1', name: 'bash', args: { command } })
      session.append('tool/result', { callId: 'b1', ok: true, output: 'ok' })
    })
    session.close()
    const md = render(session.id, 'md')
    expect(md).not.toContain('sk-p')
    expect(md).toContain('Bearer [redacted]')
  })
})

describe('markdownText', () => {
  it('writes tags outside code as text and keeps code as it is', () => {
    expect(markdownText('a <b>bold</b> and `<i>` and a < b')).toBe(
      'a &lt;b>bold&lt;/b> and `<i>` and a < b',
    )
    expect(markdownText('```html\n<details>\n```\n</details>')).toBe(
      '```html\n<details>\n```\n&lt;/details>',
    )
    expect(markdownText('``code with ` inside <x>`` <y>')).toBe('``code with ` inside <x>`` &lt;y>')
  })

  it('closes a fence the message left open, so the transcript after it is not code', () => {
    expect(markdownText('look:\n~~~~\n<div>')).toBe('look:\n~~~~\n<div>\n~~~~')
  })
})

describe('cut', () => {
  it('keeps short texts whole and says how much of a long one was left out', () => {
    expect(cut('a\nb\n', 5, 100)).toEqual({ text: 'a\nb\n' })
    expect(cut('1\n2\n3\n4\n', 2, 100)).toEqual({
      text: '1\n2',
      cut: "2 more lines not shown (the whole text is in the session's log)",
    })
    expect(cut('x'.repeat(50), 10, 20).cut).toBe(
      "30 more characters not shown (the whole text is in the session's log)",
    )
  })
})
