/**
 * Getting around the shell as a user does: the settings page from the top bar, the inspector
 * (closed until opened) from its toggle, then a tab.
 */
import type { Locator, Page } from '@playwright/test'

/** Opens the settings page; returns it (a `main` named "Settings"). */
export async function openSettings(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  return page.getByRole('main', { name: 'Settings' })
}

/** Leaves the settings page for the chat. */
export async function backToChat(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Back to chat' }).click()
}

/** Opens the inspector if it is closed, picks `tab`, and returns that tab's panel. */
export async function openInspector(page: Page, tab: 'Timeline' | 'Checkpoints'): Promise<Locator> {
  const toggle = page.getByRole('button', { name: 'Inspector', exact: true })
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click()
  await page
    .getByRole('complementary', { name: 'Inspector' })
    .getByRole('tab', { name: tab })
    .click()
  return page.getByRole('region', { name: tab })
}
