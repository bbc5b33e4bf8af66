/**
 * The renderer's drop-downs are Radix Selects (role combobox, options in a listbox drawn in a
 * portal), so they are used as a person does: open, then pick an option by its name.
 */
import { expect } from '@playwright/test'
import type { Locator } from '@playwright/test'

/** Opens `combobox` and returns its listbox (the page holds one open listbox at a time). */
export async function openOptions(combobox: Locator): Promise<Locator> {
  await combobox.click()
  const listbox = combobox.page().getByRole('listbox')
  await expect(listbox).toBeVisible()
  return listbox
}

/** Picks the option named `name` in `combobox`, and waits until the list has closed. */
export async function chooseOption(combobox: Locator, name: string | RegExp): Promise<void> {
  const listbox = await openOptions(combobox)
  await listbox.getByRole('option', { name }).click()
  await expect(listbox).toHaveCount(0)
}
