/**
 * The chat header's code-mode switch on a session whose last switch lies before the part of the
 * history the chat reads at open (it opens on the tail): the switch still says "on", because the
 * session's details read the whole history, and the next request offers `run_code`. Switching it
 * off is shown at once and logged.
 */
import { expect, test } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { Session } from '../../main/core/log/index'
import { databasePath, openStore } from '../../main/core/store/index'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

/** About 1,400 forwarded events after the switch: well past the chat's first read (500). */
const TURNS = 200

/** Code mode switched on first, then many plain turns. */
function writeSession(home: string, project: string): void {
  const store = openStore(databasePath(home))
  try {
    const session = Session.create(store, { projectDir: project })
    session.append('session/code-mode', { on: true })
    let headerSeq: number | undefined
    for (let n = 1; n <= TURNS; n++) {
      session.append('turn/start', {})
      session.append('step/start', {})
      headerSeq ??= session.append('request/header', {
        sections: [{ name: 'identity', text: 'You are Bridle.' }],
        tools: [],
        reason: 'initial',
      }).seq
      session.append('user/message', { content: `Question ${n}` })
      session.append('request/start', { provider: 'e2e', model: 'scripted', params: {}, headerSeq })
      session.append('assistant/message', {
        blocks: [{ type: 'text', text: `Answer ${n}.` }],
        finish: 'stop',
      })
      session.append('step/end', { reason: 'completed' })
      session.append('turn/end', { reason: 'completed' })
    }
    session.flushSync()
  } finally {
    store.close()
  }
}

let app: AppUnderTest | undefined

test.beforeEach(async () => {
  app = await startApp({ seed: writeSession, script: [{ steps: [{ text: 'Still here.' }] }] })
})

test.afterEach(async () => {
  await app?.stop()
})

type Body = { tools?: { function: { name: string } }[] }

test('the code-mode switch reads the whole history, not only the chat’s tail', async ({ page }) => {
  if (app === undefined) throw new Error('the app did not start')
  await page.goto(app.url)
  // The log's title does not reach the row of a session written through the store alone.
  await page.getByRole('tree', { name: 'Session tree' }).getByRole('treeitem').first().click()
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText(`Answer ${TURNS}.`, { exact: true })).toBeVisible()
  // The switch event itself was not read: the chat holds only the tail.
  await expect(log.getByText('Question 1', { exact: true })).toHaveCount(0)
  const codeMode = page.getByRole('switch', { name: 'Code mode' })
  await expect(codeMode).toBeChecked()

  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('One more question')
  await box.press('Enter')
  await expect(log.getByText('Still here.')).toBeVisible()
  const tools = ((chatRequests(app.model)[0]?.body as Body | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  )
  expect(tools).toContain('run_code')

  // The input is drawn as a switch (the label is what shows): flipped with the keyboard.
  await codeMode.focus()
  await page.keyboard.press('Space')
  await expect(codeMode).not.toBeChecked()
  await expect(page.getByRole('alert')).toHaveCount(0)
})
