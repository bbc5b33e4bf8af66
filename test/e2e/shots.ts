/**
 * Screenshots of one view as people see it: at 1440×900 and 1024×700, in the light and the dark
 * theme (the theme follows the emulated colour scheme). The page is left light at 1440×900.
 * Each shot adds its own time to the test's budget: a resize, a screenshot and an axe check take
 * seconds on a slow machine, and a test's 30 s was sized for its steps, not for its pictures.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'

export const SHOT_SIZES = [
  { name: '1440', width: 1440, height: 900 },
  { name: '1024', width: 1024, height: 700 },
] as const

/** What one shot may add to its test's time: the resize, its `prepare`, the PNG, its `check`. */
const SECONDS_PER_SHOT = 10

export type ShotTheme = 'light' | 'dark'

export interface ShotOptions {
  /** Brings the view back after a resize (a scroll, an open menu). */
  readonly prepare?: () => Promise<void>
  /** Runs after each screenshot (an axe check); `where` says which size and theme. */
  readonly check?: (where: string) => Promise<void>
}

/** Shoots the view four ways; `pathOf` names each PNG from the size's name and the theme. */
export async function shootEachWay(
  page: Page,
  pathOf: (size: string, theme: ShotTheme) => string,
  { prepare, check }: ShotOptions = {},
): Promise<void> {
  const info = test.info()
  info.setTimeout(info.timeout + 2 * SHOT_SIZES.length * SECONDS_PER_SHOT * 1000)
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    for (const size of SHOT_SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height })
      await prepare?.()
      await page.screenshot({ path: pathOf(size.name, theme) })
      await check?.(`${size.name} in ${theme}`)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1440, height: 900 })
}
