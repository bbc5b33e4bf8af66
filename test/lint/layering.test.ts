import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, it, expect } from 'vitest'

/**
 * Proves the layering rules of eslint.config.js (docs/ARCHITECTURE.md 2.6) fire: fixture sources are
 * linted as if they lived in main/core, main/electron or the renderer. Two rules: the built-in
 * no-restricted-imports (electron out of the core, Node out of the renderer) and
 * import-x/no-restricted-paths (the core's layer order, renderer features through their index).
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

const layeringRules = new Set(['no-restricted-imports', 'import-x/no-restricted-paths'])

interface Restriction {
  readonly line: number
  readonly rule: string | null
  readonly message: string
}

const linted = new Map<string, Promise<{ text: string; restrictions: Restriction[] }>>()

/** Lints a fixture as if it were the file `as`; returns the messages of the layering rules. */
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
        .filter((m) => m.ruleId !== null && layeringRules.has(m.ruleId))
        .map((m) => ({ line: m.line, rule: m.ruleId, message: m.message }))
      return { text, restrictions }
    })()
    linted.set(key, result)
  }
  return result
}

/** The 1-based lines of `text` that import (or re-export) from exactly `specifier`. */
function linesImporting(text: string, specifier: string): number[] {
  const lines: number[] = []
  text.split('\n').forEach((line, index) => {
    const isImport = line.startsWith('import ') || line.startsWith('export ')
    if (isImport && line.endsWith(` from '${specifier}'`)) lines.push(index + 1)
  })
  return lines
}

/** Every relative specifier a fixture imports from. */
function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(/ from '(\.[^']*)'$/gm)].flatMap((match) => match[1] ?? [])
}

/**
 * Whether `specifier`, imported by the file `as`, names a real file the way the lint resolver
 * finds it ('.js' for '.ts', no extension, a folder's index). import-x skips imports it cannot
 * resolve, so a fixture pointing at a moved file would pass without testing anything.
 */
function resolvesOnDisk(as: string, specifier: string): boolean {
  const path = join(dirname(join(repoRoot, as)), specifier)
  const candidates = [
    path,
    path.replace(/\.js$/, '.ts'),
    path.replace(/\.js$/, '.tsx'),
    `${path}.ts`,
    `${path}.tsx`,
    join(path, 'index.ts'),
    join(path, 'index.tsx'),
  ]
  return candidates.some((candidate) => existsSync(candidate) && statSync(candidate).isFile())
}

/** Expects each line importing one of `offending` to carry exactly one message of `rule`. */
async function expectFlagged(
  fixture: string,
  as: string,
  offending: Readonly<Record<string, readonly string[]>>,
) {
  const { text, restrictions } = await lintFixture(fixture, as)
  const expected: number[] = []
  for (const [specifier, phrases] of Object.entries(offending)) {
    const lines = linesImporting(text, specifier)
    expect(lines, specifier).not.toEqual([])
    for (const line of lines) {
      const found = restrictions.filter((r) => r.line === line)
      expect(found, `${specifier} on line ${line}`).toHaveLength(1)
      expect(found[0]?.rule).toBe('import-x/no-restricted-paths')
      expect(found[0]?.message).toContain(`"${specifier}"`)
      for (const phrase of phrases) expect(found[0]?.message).toContain(phrase)
      expected.push(line)
    }
  }
  // Nothing else in the fixture is flagged: its allowed imports pass.
  expect(restrictions.map((r) => r.line)).toEqual(expected.sort((a, b) => a - b))
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

describe('main/core layers import only the layers below them', { timeout: 20_000 }, () => {
  const order =
    'layer order: protocol/ < store < kernel < log < import < models < workspace < tokens < loop < tools < prompt < compaction < mcp < host < main/cli, main/electron'
  const storeMayImport = 'store may import only protocol/ and itself'

  it('flags store importing tools or the loop, naming both layers and the order', async () => {
    await expectFlagged('core-store-imports-tools.ts', 'main/core/store/x.ts', {
      '../tools/pipeline.js': ['Layering: main/core/store is below tools', storeMayImport, order],
      '../tools/types.js': ['Layering: main/core/store is below tools', storeMayImport, order],
      '../loop/agent.js': ['Layering: main/core/store is below loop', storeMayImport, order],
    })
  })

  it('allows imports down the order and within the layer', async () => {
    const { restrictions } = await lintFixture('core-allowed-downward.ts', 'main/core/tools/x.ts')
    expect(restrictions).toEqual([])
  })

  it('keeps protocol/ free of anything of ours', async () => {
    const phrases = ['Layering: protocol/ is below', 'protocol/ imports nothing of ours']
    await expectFlagged('protocol-imports-core.ts', 'protocol/x.ts', {
      '../main/core/log/session.js': phrases,
      '../main/core/kernel/index.js': phrases,
    })
  })

  it('keeps main/cli and main/electron apart, both on top of the core', async () => {
    await expectFlagged('cli-imports-electron.ts', 'main/cli/x.ts', {
      '../electron/window.js': ['main/cli and main/electron are side by side at the top'],
    })
  })
})

describe('renderer features use each other only through their index', { timeout: 20_000 }, () => {
  const asFeature = 'renderer/src/features/sessions/x.tsx'
  const phrases = [
    'Feature boundary: renderer/src/features/sessions may use another feature only through',
    'index.ts(x)',
  ]

  it("flags another feature's files", async () => {
    await expectFlagged('feature-imports-internals.tsx', asFeature, {
      '../chat/items': phrases,
      '../settings/field': phrases,
      '../timeline/event-rows': phrases,
    })
  })

  it("allows another feature's index, state, the bridge, protocol/ and the shared feed", async () => {
    const { restrictions } = await lintFixture('feature-imports-index.tsx', asFeature)
    expect(restrictions).toEqual([])
  })
})

describe('the layering fixtures point at real files', () => {
  const lintedAs = {
    'core-store-imports-tools.ts': 'main/core/store/x.ts',
    'core-allowed-downward.ts': 'main/core/tools/x.ts',
    'protocol-imports-core.ts': 'protocol/x.ts',
    'cli-imports-electron.ts': 'main/cli/x.ts',
    'feature-imports-internals.tsx': 'renderer/src/features/sessions/x.tsx',
    'feature-imports-index.tsx': 'renderer/src/features/sessions/x.tsx',
  }

  it.each(Object.entries(lintedAs))('%s (linted as %s)', (fixture, as) => {
    const specifiers = relativeSpecifiers(readFileSync(join(fixtures, fixture), 'utf8'))
    expect(specifiers).not.toEqual([])
    expect(specifiers.filter((specifier) => !resolvesOnDisk(as, specifier))).toEqual([])
  })
})
