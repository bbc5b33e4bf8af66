/**
 * The session tree as an ARIA tree (levels, expanded and selected state, a fork count when
 * folded, the fork point on hover, no axe violations), by keyboard (Up/Down, Left/Right folding
 * and going to the parent, Enter to open, F2 and Escape, Delete to trash, Shift+F10 or the Menu
 * key for a menu of Rename, Fork and Delete) and the trash (listed, restored back into the tree).
 * Screenshot: test-results/session-tree.png.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [{ steps: [{ text: 'Alpha answer.' }] }, { steps: [{ text: 'Beta answer.' }] }],
  })
})

test.afterEach(async () => {
  await app.stop()
})

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

test('arrows move, fold and open; Delete trashes; the trash restores', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  const tree = sidebar.getByRole('tree', { name: 'Session tree' })
  const row = (name: RegExp) => tree.getByRole('treeitem', { name })

  await send(page, 'Beta')
  await expect(chat).toContainText('Alpha answer.')
  await sidebar.getByRole('button', { name: 'New session' }).click()
  await send(page, 'Alpha')
  await expect(chat).toContainText('Beta answer.')
  // The first session gets a fork: Beta > (its fork), and the untitled one beside them.
  await row(/^Beta/).click()
  await tree.locator(`button[aria-label="Fork Beta at its last event"]`).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  const forks = tree.getByRole('group', { name: 'Forks of Beta' })
  await expect(forks).toBeVisible()
  const fork = forks.getByRole('treeitem', { name: /fork at #\d+/ })
  // Titled from its first message (issue 17), no longer "Untitled session".
  const other = row(/^Alpha/)
  const beta = row(/^Beta \d+ messages/)

  // What the tree announces: levels, the open session selected, the parent expanded.
  await expect(fork).toHaveAttribute('aria-level', '2')
  await expect(fork).toHaveAttribute('aria-selected', 'true')
  await expect(beta).toHaveAttribute('aria-level', '1')
  await expect(beta).toHaveAttribute('aria-expanded', 'true')
  await expect(beta).toHaveAttribute('aria-selected', 'false')
  await expect(other).not.toHaveAttribute('aria-expanded', /.*/)
  // Hovering the fork's meta line says what it starts after.
  await fork.locator('.session-meta').hover()
  const tip = page.getByRole('tooltip')
  await expect(tip).toContainText(/Forked after event #\d+/)
  await expect(tip).toContainText('Answer: Alpha answer.')
  await page.mouse.move(0, 0)
  const axe = await new AxeBuilder({ page }).include('aside[aria-label="Sessions"]').analyze()
  expect(
    axe.violations.map(
      (v) =>
        `${v.id} ${v.impact}: ${v.nodes.map((n) => `${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).join(' | ')}`,
    ),
  ).toEqual([])

  // One stop for Tab in the tree: the open session (the fork).
  await expect(fork).toHaveAttribute('tabindex', '0')
  await expect(other).toHaveAttribute('tabindex', '-1')
  await fork.focus()
  await page.keyboard.press('ArrowLeft')
  await expect(beta).toBeFocused()
  await page.keyboard.press('ArrowLeft')
  await expect(forks).toHaveCount(0)
  await expect(beta).toHaveAttribute('aria-expanded', 'false')
  await expect(beta).toHaveAccessibleName(/1 fork$/)
  await page.keyboard.press('ArrowRight')
  await expect(forks).toBeVisible()
  await page.keyboard.press('ArrowRight')
  await expect(fork).toBeFocused()
  // Home and End reach the first and last session on screen; Up and Down step between.
  const all = tree.getByRole('treeitem')
  await expect(all).toHaveCount(3)
  await page.keyboard.press('Home')
  await expect(all.first()).toBeFocused()
  await page.keyboard.press('End')
  await expect(all.last()).toBeFocused()
  await page.keyboard.press('ArrowUp')
  await expect(all.nth(1)).toBeFocused()
  // Enter opens the focused session.
  await other.focus()
  await page.keyboard.press('Enter')
  await expect(chat).toContainText('Beta answer.')
  await expect(chat).not.toContainText('Alpha answer.')

  // F2 renames in place; Escape leaves it as it was, with the focus back on the item.
  await other.focus()
  await page.keyboard.press('F2')
  const title = sidebar.getByRole('textbox', { name: 'Session title' })
  await title.fill('Not kept')
  await title.press('Escape')
  await expect(title).toHaveCount(0)
  await expect(other).toBeFocused()

  // Delete on the focused session asks, then moves it to the trash; Cancel keeps it.
  await page.keyboard.press('Delete')
  const confirm = page.getByRole('alertdialog', { name: 'Move to trash?' })
  await expect(confirm).toContainText('Alpha goes to the trash')
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(other).toBeVisible()
  await other.focus()
  await page.keyboard.press('Delete')
  await confirm.getByRole('button', { name: 'Move to trash' }).click()
  await expect(other).toHaveCount(0)
  // It was open: a neighbour is open now, not a blank pane.
  await expect(tree.getByRole('treeitem', { selected: true })).toHaveCount(1)
  await expect(chat).toContainText('answer.')
  const trash = sidebar.getByRole('region', { name: 'Trash' })
  await trash.getByRole('button', { name: /Trash \(1\)/ }).click()
  await expect(trash.getByRole('list', { name: 'Trashed sessions' })).toContainText('Alpha')
  await page.screenshot({ path: 'test-results/session-tree.png' })
  await trash.getByRole('button', { name: 'Restore Alpha' }).click()
  await expect(other).toBeVisible()
  await expect(trash).toHaveCount(0)
})

test('Shift+F10 or the Menu key opens the row menu: Fork, Rename, Delete by keyboard', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  const tree = sidebar.getByRole('tree', { name: 'Session tree' })
  await send(page, 'Gamma')
  await expect(chat).toContainText('Alpha answer.')
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  const gamma = tree.getByRole('treeitem', { name: /^Gamma/ })

  // Shift+F10: the menu, its first item focused; Escape gives the focus back to the item.
  await gamma.focus()
  await page.keyboard.press('Shift+F10')
  const menu = page.getByRole('menu', { name: 'Actions of Gamma' })
  await expect(menu.getByRole('menuitem')).toHaveText([
    'RenameF2',
    'Fork',
    'Restore files to here',
    'Export…',
    'DeleteDelete',
  ])
  await expect(menu.getByRole('menuitem', { name: 'Rename' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(menu).toHaveCount(0)
  await expect(gamma).toBeFocused()

  // Fork, by the arrows and Enter: the fork opens, under Gamma in the tree.
  await page.keyboard.press('Shift+F10')
  await page.keyboard.press('ArrowDown')
  await expect(menu.getByRole('menuitem', { name: 'Fork' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  const forks = tree.getByRole('group', { name: 'Forks of Gamma' })
  await expect(forks.getByRole('treeitem')).toHaveCount(1)

  // The Menu key, then Rename: the title field takes the focus; Escape returns to the item.
  await gamma.focus()
  await page.keyboard.press('ContextMenu')
  await menu.getByRole('menuitem', { name: 'Rename' }).press('Enter')
  const field = tree.getByRole('textbox', { name: 'Session title' })
  await expect(field).toBeFocused()
  await field.press('Escape')
  await expect(gamma).toBeFocused()

  // Delete from the menu asks first, as the Delete key does.
  await page.keyboard.press('Shift+F10')
  await menu.getByRole('menuitem', { name: 'Delete' }).press('Enter')
  await expect(page.getByRole('alertdialog').or(page.getByRole('dialog'))).toBeVisible()

  // The help lists the menu's keys.
  await page.keyboard.press('Escape')
  await page.keyboard.press('F1')
  await expect(page.getByRole('table', { name: 'Keyboard shortcuts' })).toContainText(
    'Shift+F10 / Menu',
  )
})
