/**
 * Attachments through `bridle serve` with the scripted model: `@` in the composer opens the
 * project's files as a listbox, the keyboard picks one, it shows as a chip and its text reaches
 * the model inside a `<file>` block; an image pasted for a model that does not take images is
 * refused with a sentence, and the message and its image stay in the composer.
 * Screenshot: test-results/attachments-complete.png.
 */
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { chatRequests } from '../fixtures/model-server/server'

let app: AppUnderTest

/** The page's clipboard constructors, typed for the one paste this test makes. */
interface PasteGlobals {
  atob(data: string): string
  DataTransfer: new () => { items: { add(file: unknown): void } }
  File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown
  ClipboardEvent: new (
    type: string,
    init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean },
  ) => unknown
}

/** One pixel of PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

test.beforeEach(async () => {
  app = await startApp({
    files: {
      'README.md': '# Demo\n',
      'src/app.ts': 'export const answer = 41\n',
      'src/apply.ts': 'export const apply = true\n',
      'node_modules/dep/app.js': 'never listed\n',
    },
    script: [{ steps: [{ text: 'The answer is 41.' }] }],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('@ completes a project file, attaches it, and the model receives its text', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.pressSequentially('Explain @app')

  const list = page.getByRole('listbox', { name: 'Project files' })
  await expect(list).toBeVisible()
  const options = list.getByRole('option')
  // node_modules/dep/app.js is not offered: node_modules is never listed.
  await expect(options).toHaveText([/app\.tssrc\/app\.ts/, /apply\.tssrc\/apply\.ts/])
  await expect(options.first()).toHaveAttribute('aria-selected', 'true')
  await expect(box).toHaveAttribute(
    'aria-activedescendant',
    (await options.first().getAttribute('id')) ?? '',
  )
  await page.screenshot({ path: 'test-results/attachments-complete.png' })

  // The arrows move the highlight (and the textbox says which option is active); Escape closes.
  await box.press('ArrowDown')
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true')
  await box.press('ArrowUp')
  await box.press('Escape')
  await expect(list).toHaveCount(0)
  await expect(box).not.toHaveAttribute('aria-activedescendant')

  // Typing on opens it again; Tab picks the highlighted file.
  await box.pressSequentially('.')
  await expect(options.first()).toHaveText(/^app\.tssrc\/app\.ts$/)
  await expect(options.first()).toHaveAttribute('aria-selected', 'true')
  await box.press('Tab')
  await expect(list).toHaveCount(0)
  await expect(box).toHaveValue('Explain @src/app.ts ')
  const remove = page.getByRole('button', { name: 'Remove app.ts' })
  await expect(remove).toBeVisible()

  await box.press('Enter')
  await expect(page.getByRole('article', { name: 'Agent' }).last()).toContainText(
    'The answer is 41.',
  )
  await expect(remove).toHaveCount(0)
  const body = chatRequests(app.model)[0]?.body as {
    messages: { role: string; content: unknown }[]
  }
  const user = body.messages.findLast((m) => m.role === 'user')
  expect(user?.content).toBe(
    'Explain @src/app.ts \n\n<file path="src/app.ts">\nexport const answer = 41\n</file>',
  )
})

test('an image pasted for a model that does not take images is refused with a sentence', async ({
  page,
}) => {
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('What is in this picture?')
  await box.evaluate((element, data) => {
    // Page-side: the browser's clipboard types (the Node tsconfig has no DOM lib).
    const w = globalThis as unknown as PasteGlobals
    const bytes = Uint8Array.from(w.atob(data), (c) => c.charCodeAt(0))
    const transfer = new w.DataTransfer()
    transfer.items.add(new w.File([bytes], 'pixel.png', { type: 'image/png' }))
    const paste = new w.ClipboardEvent('paste', {
      clipboardData: transfer,
      bubbles: true,
      cancelable: true,
    })
    ;(element as unknown as { dispatchEvent(event: unknown): boolean }).dispatchEvent(paste)
  }, PNG)
  await expect(page.getByRole('button', { name: 'Remove pixel.png' })).toBeVisible()

  await box.press('Enter')
  await expect(page.getByRole('alert').filter({ hasText: 'does not accept images' })).toContainText(
    'scripted does not accept images; remove the image or pick a model that does',
  )
  // Nothing went to the model, and nothing typed or attached was lost.
  expect(chatRequests(app.model)).toHaveLength(0)
  await expect(box).toHaveValue('What is in this picture?')
  await page.getByRole('button', { name: 'Remove pixel.png' }).click()
  await expect(page.getByRole('button', { name: 'Remove pixel.png' })).toHaveCount(0)
})
