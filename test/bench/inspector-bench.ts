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
import { Session } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { clickSession, scrollFrameTimes, withBenchApp } from './browser.js'
import type { ScrollMode } from './browser.js'
import { figure, frameFigures, printFigures } from './figures.js'
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

export async function benchInspector(events = 200_000): Promise<Figure[]> {
  const figures: Figure[] = []
  const write = (home: string, project: string) => {
    const started = performance.now()
    writeSession(home, project, events)
    figures.push(figure(`write a ${events}-event session`, performance.now() - started, 'ms'))
  }
  return withBenchApp('inspector', write, async (page) => {
    const openAt = Date.now()
    await clickSession(page, TITLE)
    // The Timeline tab at once, while the chat is still reading the history: the inspector's
    // first rows must not wait for it.
    // The inspector is closed until opened (Ctrl+I); opening it is part of the user's path.
    const tabAt = Date.now()
    await page.keyboard.press('Control+i')
    await page.getByRole('tab', { name: 'Timeline' }).click()
    await page.locator('.tl-rows [role="row"][data-seq]').first().waitFor({ timeout: 60_000 })
    const firstRows = Date.now() - tabAt
    figures.push(
      figure('inspector: Timeline click to first rows', firstRows, 'ms', {
        text: '< 500 ms',
        isMet: firstRows < 500,
      }),
    )
    await page.locator('[role="log"][aria-busy="false"]').waitFor({ timeout: 300_000 })
    figures.push(figure(`open the ${events}-event session: chat ready`, Date.now() - openAt, 'ms'))
    const modes: [string, ScrollMode][] = [
      ['drag end to end', { kind: 'sweep', frames: 600 }],
      ['wheel, 10 rows a frame', { kind: 'wheel', frames: 600, pixels: 240 }],
      ['random jumps', { kind: 'jump', frames: 300 }],
    ]
    for (const [label, mode] of modes) {
      const times = await scrollFrameTimes(page, '[data-testid="timeline-scroll"]', mode)
      figures.push(...frameFigures(`inspector: scroll (${label})`, times))
    }
    return figures
  })
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  printFigures(await benchInspector(Number(process.argv[2] ?? 200_000)))
}
