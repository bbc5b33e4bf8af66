/**
 * Attachments through `bridle serve` with the scripted model: `@` in the composer opens the
 * project's files as a listbox, the keyboard picks one, it shows as a chip and its text reaches
 * the model inside a `<file>` block; an image pasted for a model that does not take images is
 * refused with a sentence, and the message and its image stay in the composer; a message sent
 * with a file and an image shows both (a chip, a thumbnail that opens larger), after a reload too.
 * Screenshots: test-results/attachments-complete.png, test-results/attachments-sent.png.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Locator } from '@playwright/test'
import { startApp, typeInComposer } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { chatRequests } from '../fixtures/model-server/server'
import type { PageGlobals } from './page-globals'

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

/** The app over a small project; `model` names the model (`llava:7b` takes images). */
async function startDemo(model?: string): Promise<AppUnderTest> {
  return startApp({
    files: {
      'README.md': '# Demo\n',
      'src/app.ts': 'export const answer = 41\n',
      'src/apply.ts': 'export const apply = true\n',
      'node_modules/dep/app.js': 'never listed\n',
    },
    script: [{ steps: [{ text: 'The answer is 41.' }] }],
    ...(model === undefined ? {} : { model }),
  })
}

/** Pastes the one-pixel PNG into the composer as the clipboard would. */
async function pasteImage(box: Locator): Promise<void> {
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
}

test.afterEach(async () => {
  await app.stop()
})

test('@ completes a project file, attaches it, and the model receives its text', async ({
  page,
}) => {
  app = await startDemo()
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await typeInComposer(box, 'Explain @app')

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
  app = await startDemo()
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('What is in this picture?')
  await pasteImage(box)
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

test('a sent message shows its file chip and image thumbnail, also after a reload', async ({
  page,
}) => {
  app = await startDemo('llava:7b')
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  // The thumbnails are data: URLs; the CSP's img-src must let them in.
  await page.addInitScript(() => {
    const w = globalThis as unknown as PageGlobals
    w.document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.effectiveDirective} ${event.blockedURI}`),
    )
  })
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await typeInComposer(box, 'Look at @src/app.')
  await expect(page.getByRole('listbox', { name: 'Project files' })).toBeVisible()
  await box.press('Tab')
  await box.pressSequentially('and this')
  await pasteImage(box)
  await expect(page.getByRole('button', { name: 'Remove pixel.png' })).toBeVisible()
  await box.press('Enter')
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(page.getByRole('article', { name: 'Agent' }).last()).toContainText(
    'The answer is 41.',
  )
  // The model got the image as an image part.
  const body = chatRequests(app.model)[0]?.body as {
    messages: { role: string; content: unknown }[]
  }
  expect(JSON.stringify(body.messages.findLast((m) => m.role === 'user')?.content)).toContain(
    `data:image/png;base64,${PNG}`,
  )

  const shows = async () => {
    const sent = chat.getByRole('list', { name: 'Attachments' })
    // The file by its name and size (25 bytes of text), the image as a thumbnail of its bytes.
    await expect(sent.getByRole('listitem').first()).toHaveText('app.ts25 B')
    await expect(sent.getByRole('listitem').first()).toHaveAttribute('title', 'src/app.ts')
    const thumb = sent.getByRole('button', { name: 'Show image 1 larger (70 B)' })
    await expect(thumb.getByRole('img', { name: 'Image 1' })).toHaveAttribute(
      'src',
      `data:image/png;base64,${PNG}`,
    )
    return thumb
  }
  await shows()
  await page.screenshot({ path: 'test-results/attachments-sent.png' })

  // From the log after a reload; the thumbnail opens the image larger, Escape closes it.
  await page.reload()
  await page.getByRole('tree', { name: 'Session tree' }).getByRole('treeitem').first().click()
  const thumb = await shows()
  await thumb.click()
  const large = page.getByRole('dialog', { name: 'Image 1' })
  await expect(large.getByRole('img', { name: 'Image 1' })).toBeVisible()
  const axe = await new AxeBuilder({ page })
    .include('.msg-attachments')
    .include('.image-dialog')
    .analyze()
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual(
    [],
  )
  await page.keyboard.press('Escape')
  await expect(large).toHaveCount(0)
  await expect(thumb).toBeFocused()
  expect(consoleErrors).toEqual([])
})
