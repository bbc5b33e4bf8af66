/**
 * The chat on a 10k-message session (issue 8's target: scrolling end to end with frame p95 under
 * 16 ms). Part of `npm run bench`; on its own after a build:
 *
 *   npm run build && npx tsx test/bench/chat-bench.ts [messages]
 *
 * It writes a session of `messages` user and assistant messages (markdown with lists, code and
 * tables; every fifth turn reads a file through a tool) into a temp data folder, opens it through
 * `bridle serve` in Debian's Chromium, and times the open until the last answer shows (the chat
 * reads the history's tail first). Then it scrolls as a scroll-bar drag from the top of what is
 * loaded to the end, as a held wheel up from the end, and as random jumps (older pages are read
 * and far ones let go of on the way, as the chat does for a user); then up to the first message
 * and back, with the JS heap after each: the chat keeps a window of the history, so the heap at
 * the first message stays near the one at the start.
 */
import { Session } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import {
  findSession,
  heapAfterGc,
  jumpToLatest,
  scrollChatToStart,
  scrollFrameTimes,
  withBenchApp,
} from './browser.js'
import type { ScrollMode } from './browser.js'
import { figure, frameFigures, printFigures } from './figures.js'
import type { Figure } from './figures.js'

const TITLE = 'Chat bench'

/** An answer of a few paragraphs whose shape varies with `n`, as real answers do. */
function answer(n: number): string {
  const parts = [
    `Turn ${n}: the change touches **src/file${n}.ts** and its test. In short:`,
    `- the parser keeps \`offset\` per token\n- errors carry the line (${n % 97})\n- nothing else moves`,
  ]
  if (n % 4 === 0) {
    parts.push(
      '```ts\n' +
        `export function area${n}(width: number, height: number): number {\n` +
        '  if (width < 0 || height < 0) throw new RangeError("negative side")\n' +
        '  return width * height\n}\n```',
    )
  }
  if (n % 10 === 0) {
    parts.push(
      '| file | lines | status |\n| --- | ---: | --- |\n| a.ts | 120 | ok |\n| b.ts | 48 | changed |',
    )
  }
  parts.push('Run `npm test` to check it.')
  return parts.join('\n\n')
}

/** Writes the session; returns the text of its last answer. */
export function writeSession(home: string, project: string, messages: number): string {
  const store = openStore(databasePath(home))
  const session = Session.create(store, { projectDir: project })
  session.append('session/title', { title: TITLE })
  let request:
    | { provider: string; model: string; params: Record<string, string>; headerSeq: number }
    | undefined
  let written = 0
  let last = ''
  for (let n = 1; written < messages; n++) {
    session.append('turn/start', {})
    session.append('step/start', {})
    request ??= {
      provider: 'bench',
      model: 'm',
      params: {},
      headerSeq: session.append('request/header', {
        sections: [{ name: 'identity', text: 'You are Bridle.' }],
        tools: [],
        reason: 'initial',
      }).seq,
    }
    session.append('user/message', { content: `Question ${n}: what does src/file${n}.ts do?` })
    written++
    if (n % 5 === 0) {
      const callId = `c${n}`
      session.append('request/start', request)
      session.append('assistant/message', {
        blocks: [
          { type: 'text', text: 'Let me read it.' },
          { type: 'tool-call', callId, name: 'read', args: `{"path":"src/file${n}.ts"}` },
        ],
        finish: 'tool-calls',
      })
      written++
      session.append('tool/call', { callId, name: 'read', args: { path: `src/file${n}.ts` } })
      session.append('tool/result', { callId, ok: true, output: 'export const x = 1\n'.repeat(12) })
      session.append('step/end', { reason: 'tool-calls' })
      session.append('step/start', {})
    }
    session.append('request/start', request)
    session.append('assistant/message', {
      blocks: [{ type: 'text', text: answer(n) }],
      finish: 'stop',
    })
    last = `Turn ${n}: the change touches`
    written++
    session.append('step/end', { reason: 'completed' })
    session.append('turn/end', { reason: 'completed' })
    if (n % 50 === 0) session.flushSync()
  }
  session.flushSync()
  store.close()
  return last
}

const FIRST_QUESTION = 'Question 1: what does src/file1.ts do?'

export async function benchChat(messages = 10_000): Promise<Figure[]> {
  let lastAnswer = ''
  const write = (home: string, project: string) => {
    lastAnswer = writeSession(home, project, messages)
  }
  return withBenchApp('chat', write, async (page) => {
    const figures: Figure[] = []
    // Timed from the click: the app's own start and the sidebar's listing are not the session's.
    const session = await findSession(page, TITLE)
    const openAt = Date.now()
    await session.click()
    await page.locator('[role="log"][aria-busy="false"]').waitFor({ timeout: 300_000 })
    await page.locator('.chat-row').filter({ hasText: lastAnswer }).last().waitFor()
    const shown = Date.now() - openAt
    figures.push(
      figure(`chat: open a ${messages}-message session, last answer shown`, shown, 'ms', {
        text: '< 500 ms',
        isMet: shown < 500,
      }),
    )
    figures.push(figure('chat: JS heap after opening', await heapAfterGc(page), 'MB'))
    const modes: [string, ScrollMode][] = [
      ['drag end to end', { kind: 'sweep', frames: 600 }],
      ['wheel up from the end, 120 px a frame', { kind: 'wheel', frames: 600, pixels: -120 }],
      ['random jumps', { kind: 'jump', frames: 300 }],
    ]
    for (const [label, mode] of modes) {
      const times = await scrollFrameTimes(page, '.chat-scroll', mode)
      figures.push(...frameFigures(`chat: scroll (${label})`, times))
    }
    await jumpToLatest(page, lastAnswer)
    const toStart = await scrollChatToStart(page, FIRST_QUESTION)
    figures.push(figure('chat: scroll up to the first message (older pages read)', toStart, 'ms'))
    figures.push(figure('chat: JS heap at the first message', await heapAfterGc(page), 'MB'))
    await jumpToLatest(page, lastAnswer)
    figures.push(figure('chat: JS heap back at the end', await heapAfterGc(page), 'MB'))
    await page.screenshot({ path: 'test-results/bench-chat.png' })
    return figures
  })
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  printFigures(await benchChat(Number(process.argv[2] ?? 10_000)))
}
