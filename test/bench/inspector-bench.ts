/**
 * The timeline inspector on a 200k-event session (issue 8's target: first rows under 500 ms,
 * scrolling p95 under 16 ms). Not part of `npm run bench` yet; run it on its own after a build:
 *
 *   npm run build && npx tsx test/bench/inspector-bench.ts [events]
 *
 * It writes a session of `events` (default 200,000) into a temp data folder, starts
 * `bridle serve` on it, opens the session in Debian's Chromium, and measures (1) from the click on
 * the Timeline tab to the first row, (2) frame times while the table scrolls end to end, (3) frame
 * times while it jumps to random places (windows are fetched on the way, rows show "…" until then).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { Session } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { CHROMIUM_PATH } from '../../playwright.config.js'
import { figure, percentile } from './figures.js'
import type { Figure } from './figures.js'

const TITLE = 'Inspector bench'

/** A realistic mix: a turn of ~25 events with chunks, a parallel pair of tool calls, two steps. */
function appendTurn(session: Session, n: number, headerSeq: number): void {
  const request = { provider: 'bench', model: 'm', params: {}, headerSeq }
  session.append('turn/start', {})
  session.append('step/start', {})
  session.append('user/message', { content: `turn ${n}: look at src/file${n}.ts` })
  session.append('request/start', request)
  for (let c = 0; c < 5; c++)
    session.append('assistant/chunk', { deltas: [{ kind: 'text', text: `chunk ${c} ` }] })
  const calls = [`r${n}a`, `r${n}b`]
  session.append('assistant/message', {
    blocks: [
      { type: 'text', text: 'Reading.' },
      ...calls.map((callId) => ({
        type: 'tool-call' as const,
        callId,
        name: 'read',
        args: `{"path":"src/file${n}.ts"}`,
      })),
    ],
    finish: 'tool-calls',
  })
  for (const callId of calls)
    session.append('tool/call', { callId, name: 'read', args: { path: `src/file${n}.ts` } })
  for (const callId of calls)
    session.append('tool/result', { callId, ok: true, output: 'export const x = 1\n'.repeat(8) })
  session.append('step/end', { reason: 'tool-calls' })
  session.append('step/start', {})
  session.append('request/start', request)
  for (let c = 0; c < 3; c++)
    session.append('assistant/chunk', { deltas: [{ kind: 'text', text: 'Done. ' }] })
  session.append('assistant/message', { blocks: [{ type: 'text', text: 'Done.' }], finish: 'stop' })
  session.append('step/end', { reason: 'completed' })
  session.append('turn/end', { reason: 'completed' })
}

function writeSession(home: string, project: string, events: number): void {
  const store = openStore(databasePath(home))
  const session = Session.create(store, { projectDir: project })
  session.append('session/title', { title: TITLE })
  session.append('turn/start', {})
  session.append('step/start', {})
  const headerSeq = session.append('request/header', {
    sections: [{ name: 'identity', text: 'You are Bridle.' }],
    tools: [],
    reason: 'initial',
  }).seq
  session.append('step/end', { reason: 'completed' })
  session.append('turn/end', { reason: 'completed' })
  for (let n = 1; session.length < events; n++) {
    appendTurn(session, n, headerSeq)
    if (n % 40 === 0) session.flushSync()
  }
  session.flushSync()
  store.close()
}

async function startServe(home: string, project: string) {
  const child = spawn(
    process.execPath,
    ['node_modules/tsx/dist/cli.mjs', 'main/cli/index.ts', 'serve', '--port', '0'].concat([
      '--home',
      home,
      '--project',
      project,
    ]),
    { cwd: join(import.meta.dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /serving at (http:\/\/\S+)/.exec(output)
      if (match?.[1]) resolve(match[1])
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}

/** Frame times (ms) while `step(frame)` moves the scroll position once per animation frame. */
const SCROLL_PROBE = `(async ({ frames, mode }) => {
  const el = document.querySelector('[data-testid="timeline-scroll"]')
  const max = el.scrollHeight - el.clientHeight
  const times = []
  let last = performance.now()
  for (let i = 0; i < frames; i++) {
    el.scrollTop = mode === 'sweep' ? (max * i) / (frames - 1) : Math.random() * max
    await new Promise((resolve) => requestAnimationFrame(resolve))
    const now = performance.now()
    times.push(now - last)
    last = now
  }
  return times
})`

export async function benchInspector(events = 200_000): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), 'bridle-bench-inspector-'))
  // The real path: serve opens the project by it, and the sidebar lists its sessions by it.
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-bench-project-')))
  const figures: Figure[] = []
  const started = performance.now()
  writeSession(home, project, events)
  figures.push(figure(`write a ${events}-event session`, performance.now() - started, 'ms'))
  const serve = await startServe(home, project)
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
    await page.goto(serve.url)
    // The tree names a session by its summary's title; an event-written title may not be there.
    await page
      .getByRole('button', { name: new RegExp(`^(${TITLE}|Untitled session)`) })
      .first()
      .click({ timeout: 20_000 })
    // The inspector must not wait for the chat's history: measure from the tab's click.
    const tabAt = Date.now()
    await page.getByRole('tab', { name: 'Timeline' }).click()
    await page.locator('[role="row"][data-seq="0"]').waitFor({ timeout: 60_000 })
    const firstRows = Date.now() - tabAt
    figures.push(
      figure('inspector: Timeline click to first rows', firstRows, 'ms', {
        text: '< 500 ms',
        isMet: firstRows < 500,
      }),
    )
    for (const mode of ['sweep', 'jump'] as const) {
      const probe = `${SCROLL_PROBE}(${JSON.stringify({ frames: 600, mode })})`
      const times = await page.evaluate<number[]>(probe)
      const p95 = percentile(times, 95)
      figures.push(
        figure(`inspector: scroll frame time (${mode}), p95`, p95, 'ms', {
          text: '< 16 ms',
          isMet: p95 < 16,
        }),
      )
      figures.push(
        figure(`inspector: scroll frame time (${mode}), p50`, percentile(times, 50), 'ms'),
      )
    }
  } finally {
    await browser.close()
    serve.stop()
    rmSync(home, { recursive: true, force: true })
    rmSync(project, { recursive: true, force: true })
  }
  return figures
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const figures = await benchInspector(Number(process.argv[2] ?? 200_000))
  for (const f of figures) {
    const verdict = f.target === null ? '' : `${f.ok ? 'ok  ' : 'MISS'} target ${f.target}`
    console.log(`${f.name.padEnd(48)} ${String(f.value).padStart(10)} ${f.unit}  ${verdict}`)
  }
}
