import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    // Several tests start real processes (the CLI under tsx); on a loaded 2-core machine one can
    // take a few seconds. A hung test still fails, just not at the 5 s default.
    testTimeout: 30_000,
  },
})
