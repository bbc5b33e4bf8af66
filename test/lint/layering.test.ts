import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, it, expect } from 'vitest'

/**
 * Proves the layering rule of eslint.config.js (DESIGN.md section 1) fires: fixture sources are
 * linted as if they lived in main/core, main/electron or the renderer.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const fixtures = join(repoRoot, 'test', 'fixtures', 'lint')

// Virtual files belong to no tsconfig, so type-aware parsing cannot load them; the layering rule
// needs no types, so type-checked linting is switched off for these runs only.
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: [
    tseslint.configs.disableTypeChecked,
    { languageOptions: { parserOptions: { project: null, projectService: false } } },
  ],
})

const asCore = 'main/core/fixture/x.ts'
const asElectron = 'main/electron/fixture/x.ts'
const asRenderer = 'renderer/src/features/fixture/x.tsx'

interface Restriction {
  readonly line: number
  readonly message: string
}

const linted = new Map<string, Promise<{ text: string; restrictions: Restriction[] }>>()

/** Lints a fixture as if it were the file `as`; returns its no-restricted-imports messages. */
function lintFixture(fixture: string, as: string) {
  const key = `${fixture} as ${as}`
  let result = linted.get(key)
  if (!result) {
    result = (async () => {
      const text = readFileSync(join(fixtures, fixture), 'utf8')
      const [lint] = await eslint.lintText(text, { filePath: join(repoRoot, as) })
      if (!lint) throw new Error(`eslint returned no result for ${key}`)
      // A parse error or an "ignored file" warning would silence the rule and pass vacuously.
      expect(lint.fatalErrorCount).toBe(0)
      expect(lint.messages.filter((m) => m.ruleId === null)).toEqual([])
      const restrictions = lint.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => ({ line: m.line, message: m.message }))
      return { text, restrictions }
    })()
    linted.set(key, result)
  }
  return result
}

/** The 1-based lines of `text` that import from exactly `specifier`. */
function linesImporting(text: string, specifier: string): number[] {
  const lines: number[] = []
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('import ') && line.endsWith(` from '${specifier}'`)) lines.push(index + 1)
  })
  return lines
}

describe('main/core must not import electron', { timeout: 20_000 }, () => {
  const fixture = 'core-imports-electron.ts'
  const offending = [
    'electron',
    'electron/main',
    '../../electron/window.js',
    '../../electron/ipc/handlers.js',
  ]

  it.each(offending)('flags an import of %s on its line', async (specifier) => {
    const { text, restrictions } = await lintFixture(fixture, asCore)
    const lines = linesImporting(text, specifier)
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) {
      const found = restrictions.filter((r) => r.line === line)
      expect(found).toHaveLength(1)
      expect(found[0]?.message).toContain(`'${specifier}'`)
      expect(found[0]?.message).toContain('main/core is pure Node')
    }
  })

  it('flags the offending imports and nothing else', async () => {
    const { text, restrictions } = await lintFixture(fixture, asCore)
    const expected = offending.flatMap((s) => linesImporting(text, s)).sort((a, b) => a - b)
    // 'electron' is imported twice (a value and a type import): both break the layering.
    expect(expected).toHaveLength(offending.length + 1)
    expect(restrictions.map((r) => r.line)).toEqual(expected)
  })

  it('allows libraries, Node built-ins and other core subsystems', async () => {
    const { text, restrictions } = await lintFixture('core-allowed.ts', asCore)
    for (const specifier of ['zod', 'node:fs', 'node:path', 'better-sqlite3']) {
      expect(linesImporting(text, specifier)).toHaveLength(1)
    }
    expect(restrictions).toEqual([])
  })

  it('lets main/electron import electron and the core', async () => {
    const { text, restrictions } = await lintFixture('electron-imports-electron.ts', asElectron)
    expect(linesImporting(text, 'electron')).toHaveLength(1)
    expect(restrictions).toEqual([])
  })
})

describe('the renderer must not import Node, native modules or main/', { timeout: 20_000 }, () => {
  const fixture = 'renderer-imports-node.tsx'
  const offending = [
    'node:fs',
    'path',
    'fs/promises',
    'node:fs/promises',
    'better-sqlite3',
    'electron',
    'ws',
    '../../../main/core/kernel/index.js',
    '../../../../preload/index.js',
  ]

  it.each(offending)('flags an import of %s on its line', async (specifier) => {
    const { text, restrictions } = await lintFixture(fixture, asRenderer)
    const [line, ...more] = linesImporting(text, specifier)
    expect(line).toBeDefined()
    expect(more).toEqual([])
    const found = restrictions.filter((r) => r.line === line)
    expect(found).toHaveLength(1)
    expect(found[0]?.message).toContain(`'${specifier}'`)
    expect(found[0]?.message).toMatch(/renderer/i)
  })

  it('flags the offending imports and nothing else', async () => {
    const { text, restrictions } = await lintFixture(fixture, asRenderer)
    const expected = offending.flatMap((s) => linesImporting(text, s)).sort((a, b) => a - b)
    expect(expected).toHaveLength(offending.length)
    expect(restrictions.map((r) => r.line)).toEqual(expected)
  })

  it('allows React and the bridge contract', async () => {
    const { text, restrictions } = await lintFixture('renderer-allowed.tsx', asRenderer)
    for (const specifier of ['react', 'react-dom/client', '../../../../protocol/contract.js']) {
      expect(linesImporting(text, specifier)).toHaveLength(1)
    }
    expect(restrictions).toEqual([])
  })
})
