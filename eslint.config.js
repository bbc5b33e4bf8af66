// @ts-check
import { builtinModules } from 'node:module'
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * The layering of DESIGN.md section 1, enforced: the harness core never reaches for Electron, and
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
        'main/core is pure Node: it must not import electron or main/electron (DESIGN.md 1).',
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
    files: ['renderer/**'],
    languageOptions: { globals: globals.browser },
    rules: { 'no-restricted-imports': ['error', rendererRestrictions] },
  },
  prettier,
)
