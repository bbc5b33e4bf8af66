import { defineConfig } from '@playwright/test'

/** Debian's Chromium; Playwright's own browser download is impossible offline. */
export const CHROMIUM_PATH = process.env['BRIDLE_CHROMIUM'] ?? '/usr/bin/chromium'

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.ts',
  outputDir: 'test-results/playwright',
  workers: 1,
  retries: 0,
  timeout: 30_000,
  forbidOnly: Boolean(process.env['CI']),
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
  },
})
