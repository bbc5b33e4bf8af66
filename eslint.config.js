// @ts-check
import { readdirSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * The layering of docs/ARCHITECTURE.md 2.6, enforced: the harness core never reaches for Electron, and
 * the renderer never reaches for Node, native modules or the main process. The renderer talks to
 * the core only through protocol/contract.ts.
 */
const coreRestrictions = {
  patterns: [
    {
      group: [
        'electron',
        'electron/*',
        '**/main/electron',
        '**/main/electron/**',
        '**/electron/**',
      ],
      message:
        'main/core is pure Node: it must not import electron or main/electron (docs/ARCHITECTURE.md 2.6).',
    },
  ],
}

const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'))
const rendererRestrictions = {
  paths: [
    ...nodeBuiltins.map((name) => ({
      name,
      message: 'The renderer runs in a sandboxed page: no Node modules (use the bridge).',
    })),
  ],
  patterns: [
    {
      group: ['node:*'],
      message: 'The renderer runs in a sandboxed page: no Node modules (use the bridge).',
    },
    {
      group: ['better-sqlite3', 'better-sqlite3/*', 'electron', 'electron/*', 'ws'],
      message: 'The renderer must not load native or main-process modules (use the bridge).',
    },
    {
      group: ['**/main', '**/main/**', '**/preload/index', '**/preload/index.*'],
      message: 'The renderer must not import main/ or the preload; import protocol/ only.',
    },
  ],
}

/**
 * The layer order of the Node side, lowest first; folders on one line share a rank. A layer may
 * import itself and the layers before it, never one after: the arrows all point down, so a lower
 * layer builds and tests without the ones above it. `protocol/` is the floor and imports nothing
 * of ours. Checked on resolved paths by `import-x/no-restricted-paths`, type imports included.
 */
const layerOrder = [
  ['protocol'],
  ['main/core/store'],
  ['main/core/kernel'],
  ['main/core/log'],
  ['main/core/import'],
  ['main/core/models'],
  ['main/core/workspace'],
  ['main/core/tokens'],
  ['main/core/loop'],
  ['main/core/tools'],
  ['main/core/prompt'],
  ['main/core/compaction'],
  ['main/core/mcp'],
  ['main/core/host'],
  ['main/cli', 'main/electron'],
]

/** How a person says a layer: "protocol/", "store", "main/cli". */
const layerName = (/** @type {string} */ path) =>
  path === 'protocol' ? 'protocol/' : path.replace(/^main\/core\//, '')

const orderInWords = layerOrder.map((rank) => rank.map(layerName).join(', ')).join(' < ')

/** "log may import only protocol/, store, kernel and itself": what a layer may import, said. */
function mayImport(/** @type {string} */ layer, /** @type {number} */ rank) {
  const names = layerOrder.slice(0, rank).flat().map(layerName)
  if (names.length === 0) return `${layerName(layer)} imports nothing of ours but its own files`
  return `${layerName(layer)} may import only ${[...names, 'itself'].join(', ').replace(/, itself$/, ' and itself')}`
}

const repoRoot = import.meta.dirname

const layerZones = layerOrder.flatMap((rank, index) =>
  rank.flatMap((target) => {
    const who = target === 'protocol' ? 'protocol/' : target
    const allowed = mayImport(target, index)
    const above = layerOrder
      .slice(index)
      .flat()
      .filter((from) => from !== target)
    return [
      ...above.map((from) => ({
        target,
        from,
        message: layerOrder[index]?.includes(from)
          ? `Layering: ${who} and ${from} are side by side at the top, neither imports the other (layer order: ${orderInWords}).`
          : `Layering: ${who} is below ${layerName(from)}, and ${allowed} (layer order: ${orderInWords}).`,
      })),
      {
        // Anything of ours outside the order (a new core folder, main/index.ts, the renderer,
        // the preload, tests): the known layers above are reported by the zones before this one.
        target,
        from: join(repoRoot, '{main,renderer,preload,test}/**'),
        except: layerOrder.flat().map((layer) => join(repoRoot, layer, '**')),
        message: `Layering: ${who} imports something outside the layer order, and ${allowed} (layer order: ${orderInWords}). A new folder of main/core needs a place in that order in eslint.config.js.`,
      },
    ]
  }),
)

/** A folder of main/core missing from the order would go unchecked: each of its imports is flagged. */
const unorderedZones = readdirSync(join(repoRoot, 'main/core'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !layerOrder.flat().includes(`main/core/${entry.name}`))
  .map((entry) => ({
    target: `main/core/${entry.name}`,
    from: join(repoRoot, '{main,protocol,renderer,preload,test}/**'),
    except: [join(repoRoot, 'main/core', entry.name, '**')],
    message: `Layering: main/core/${entry.name} has no place in the layer order of eslint.config.js; add it there (layer order: ${orderInWords}).`,
  }))

/**
 * Renderer features (renderer/src/features/<name>/) use each other only through what a feature
 * exports on purpose, its index.ts(x). Everything else a feature may need is outside the
 * features: renderer/src/state, renderer/src/bridge, protocol/, and the shared files directly
 * in renderer/src/features (feed.ts, the seam between the shell and the panels).
 */
const featuresDir = 'renderer/src/features'
const features = readdirSync(join(repoRoot, featuresDir), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
const featureZones = features.map((feature) => ({
  target: `${featuresDir}/${feature}`,
  // `**/*` needs a file inside a folder: the shared files directly in features/ are not matched.
  from: join(repoRoot, featuresDir, `!(${feature})/**/*`),
  except: [join(repoRoot, featuresDir, '*/index.{ts,tsx}')],
  message: `Feature boundary: ${featuresDir}/${feature} may use another feature only through that feature's index.ts(x), what it exports on purpose (import '../<feature>', not its files). Code several features share belongs in renderer/src/state, renderer/src/bridge or protocol/.`,
}))

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      'test-results/**',
      'playwright-report/**',
      'test/fixtures/lint/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.node.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-confusing-void-expression': 'off',
    },
  },
  {
    // expect.objectContaining() and friends are typed `any` by design.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['main/core/**'],
    rules: { 'no-restricted-imports': ['error', coreRestrictions] },
  },
  {
    files: ['main/**', 'protocol/**', 'renderer/**'],
    plugins: { 'import-x': importX },
    settings: {
      // Sources import '.js' for a '.ts' file (NodeNext style) and the renderer omits extensions.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: repoRoot, zones: [...layerZones, ...unorderedZones, ...featureZones] },
      ],
    },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: globals.browser },
    rules: { 'no-restricted-imports': ['error', rendererRestrictions] },
  },
  prettier,
)
