/**
 * A server that numbers tool calls per response (`call_0` in every reply, as the scripted
 * fixture does by default and some local servers do): each approval belongs to its own call,
 * found by its place in the log, not by its id. A read, then two commands, each `call_0`: both
 * prompts show their Allow button on their own card, no earlier card shows a prompt, and the
 * turn completes.
 */
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  const call = (name: string, args: Record<string, unknown>) => ({
    toolCall: { name, args: JSON.stringify(args) },
  })
  app = await startApp({
    script: [
      { steps: [{ text: 'Reading first.' }, call('read', { path: 'README.md' })] },
      { steps: [call('bash', { command: 'touch one.txt' })] },
      { steps: [call('bash', { command: 'touch two.txt' })] },
      { steps: [{ text: 'Both files made.' }] },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('call ids reused in every response: each prompt on its own card, the turn completes', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('Make two files')
  await box.press('Enter')

  const cards = chat.locator('[data-call-id="call_0"]')
  const prompts = chat.getByRole('group', { name: 'Approve bash' })
  for (const [index, file] of [
    [1, 'one.txt'],
    [2, 'two.txt'],
  ] as const) {
    const card = cards.nth(index)
    await expect(card).toHaveAttribute('aria-label', 'Tool bash: waiting for approval')
    await expect(card).toContainText(`touch ${file}`)
    // One prompt in the whole chat, on this card; the read before it stays done.
    await expect(prompts).toHaveCount(1)
    await expect(cards.nth(0)).toHaveAttribute('aria-label', 'Tool read: done')
    await card
      .getByRole('button', { name: /^Allow/ })
      .first()
      .click()
    await expect(card).toHaveAttribute('aria-label', 'Tool bash: done')
  }
  await expect(chat).toContainText('Both files made.')
  await expect(cards).toHaveCount(3)
  await expect(prompts).toHaveCount(0)
})
