/**
 * The chat through `bridle serve` with the scripted model: a prompt whose answer streams (held
 * mid-way so the partial text is seen for sure), a `write` call that asks for approval in the
 * default `ask` mode, allowed from its card, its result and the turn's changes card with the
 * file's diff; then a stream held open and stopped, which leaves an interrupted answer.
 * Screenshots: test-results/chat-streaming.png, chat-approval.png, chat.png, chat-interrupted.png,
 * chat-dark.png.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest
/** Gates the scripted streams wait at; resolved by the test (or at the end, to let go). */
let releaseFirst: () => void = () => undefined
let releaseLong: () => void = () => undefined

const ANSWER = [
  'Created **notes.md** for you.',
  '',
  '| file | lines |',
  '| --- | --- |',
  '| notes.md | 2 |',
  '',
  '```ts',
  "export const greeting = 'hello'",
  '```',
].join('\n')

test.beforeEach(async () => {
  const firstGate = new Promise<void>((resolve) => (releaseFirst = resolve))
  const longGate = new Promise<void>((resolve) => (releaseLong = resolve))
  app = await startApp({
    contextWindow: 32_000,
    script: [
      {
        steps: [
          { text: 'Let me write the notes file first. ' },
          { wait: firstGate },
          { text: 'Writing it now.' },
          {
            toolCall: {
              name: 'write',
              args: JSON.stringify({ path: 'notes.md', content: '# Notes\nhello\n' }),
            },
          },
          { usage: { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240 } },
        ],
        chunkSize: 5,
        delayMs: 10,
      },
      {
        steps: [
          { text: ANSWER },
          { usage: { prompt_tokens: 1400, completion_tokens: 30, total_tokens: 1430 } },
        ],
        chunkSize: 8,
        delayMs: 5,
      },
      {
        steps: [
          { text: 'Counting slowly: one, two, three, ' },
          { wait: longGate },
          { text: 'four.' },
        ],
        chunkSize: 6,
        delayMs: 10,
      },
      // The fork's first request: refused, as a server does when the prompt is too long.
      { status: 400, body: { error: { message: 'prompt is longer than the context window' } } },
    ],
  })
})

test.afterEach(async () => {
  releaseFirst()
  releaseLong()
  await app.stop()
})

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

test('streams, asks to approve a write, shows the result and changes, stops a long stream', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(chat).toBeVisible()

  // The first answer streams, and is held mid-way: the partial text is on screen, live.
  await send(page, 'Write a notes file')
  await expect(chat.getByRole('article', { name: /^You/ })).toContainText('Write a notes file')
  const live = chat.getByRole('article', { name: 'Agent, answering' })
  await expect(live).toContainText('Let me write the notes file first.')
  await expect(live).not.toContainText('Writing it now.')
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible()
  await page.screenshot({ path: 'test-results/chat-streaming.png' })
  releaseFirst()

  // The write waits for approval in its card, in the default `ask` mode.
  const card = chat.getByRole('article', { name: /^Tool write/ })
  await expect(card).toHaveAttribute('aria-label', 'Tool write: waiting for approval')
  await expect(card).toContainText('notes.md')
  const prompt = card.getByRole('group', { name: 'Approve write' })
  await expect(prompt).toContainText('write notes.md')
  await expect(prompt.getByRole('button', { name: /Always allow/ })).toContainText('notes.md')
  await expect(chat).toContainText('Writing it now.')
  await expect(card.getByRole('figure', { name: 'Content to write' })).toContainText('# Notes')
  await page.screenshot({ path: 'test-results/chat-approval.png' })
  await prompt.getByRole('button', { name: 'Allow once' }).click()

  // Done: the card says so, with its result and the new file as a diff; then the answer.
  await expect(card).toHaveAttribute('aria-label', 'Tool write: done')
  await expect(prompt).toHaveCount(0)
  await expect(card).toContainText('Created notes.md')
  await expect(card.getByRole('figure', { name: 'New file' })).toContainText('hello')
  await expect(chat.getByRole('table')).toContainText('notes.md')
  await expect(chat.locator('.code-block .hljs-keyword').first()).toHaveText('export')

  // The turn's changes: the file, its counts, and its patch on demand from workspace/diff.
  const changes = chat.getByRole('region', { name: 'Changes' })
  await expect(changes).toContainText('notes.md')
  await expect(changes).toContainText('+2')
  await changes.getByRole('button', { name: /notes\.md/ }).click()
  await expect(changes.getByRole('figure', { name: 'Diff of notes.md' })).toContainText('# Notes')
  await expect(chat.getByLabel('Turn 1 usage')).toContainText('2.6k in / 70 out')
  await expect(page.getByRole('meter', { name: 'Context used' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  await page.screenshot({ path: 'test-results/chat.png' })

  // A long stream, stopped: the partial answer stays, marked as interrupted.
  await send(page, 'Count slowly')
  await expect(chat.getByRole('article', { name: 'Agent, answering' })).toContainText(
    'one, two, three',
  )
  await page.getByRole('button', { name: 'Stop' }).click()
  const stopped = chat.locator('.msg-interrupted')
  await expect(stopped).toContainText('one, two, three')
  await expect(stopped).toContainText('Interrupted')
  await expect(chat).toContainText('Stopped by you')
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  await page.screenshot({ path: 'test-results/chat-interrupted.png' })

  // Dark theme (it follows the OS), same chat.
  await page.emulateMedia({ colorScheme: 'dark' })
  await changes.getByRole('button', { name: /notes\.md/ }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/chat-dark.png' })
  await page.emulateMedia({ colorScheme: 'light' })

  // Select the first answer (the timeline is offered), then fork right after it.
  const firstAnswer = chat.getByRole('article', { name: /^Agent, event/ }).first()
  await firstAnswer.getByText('Let me write the notes file first.').click()
  await expect(firstAnswer).toHaveAttribute('aria-current', 'true')
  await expect(firstAnswer.getByRole('button', { name: 'Show in timeline' })).toBeVisible()
  await firstAnswer.getByRole('button', { name: 'Fork from here' }).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  await expect(chat).toContainText('Let me write the notes file first.')
  await expect(chat).not.toContainText('Count slowly')

  // In the fork, a request the server refuses: an error row that says what and what to do.
  await send(page, 'Once more')
  const error = chat.getByRole('alert').filter({ hasText: 'REQUEST_REJECTED' })
  await expect(error).toContainText('prompt is longer than the context window')
  await expect(error).toContainText('compact the history')
  await page.screenshot({ path: 'test-results/chat-error.png' })

  expect(consoleErrors).toEqual([])
})
