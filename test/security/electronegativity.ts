/**
 * Runs Doyensec's Electronegativity on the built app and fails on HIGH findings (and on MEDIUM
 * ones it is sure of, see `fails`).
 *
 *   npm run test:security            (after `npm run build`; `npm test` runs it last)
 *
 * Scanned: `out/` (the main bundle and the renderer's HTML; the tool skips the `.cjs` preload,
 * and cannot parse the renderer's ES2022 bundles: see withRendererBundlesSkipped) and package.json (Electron version, Chromium switches). It is a static AST check and one gate among several:
 * it knows nothing of sender validation, fuses or `will-frame-navigate` (main/electron/README.md, known limits);
 * test/electron/ covers those.
 *
 * Why a wrapper instead of the CLI:
 * - The CLI exits 0 whatever it finds, and its CSV breaks rows whose sample spans lines, so a
 *   gate built on its output could pass silently. Here the runner is called as a library and its
 *   findings come back as objects with severity and confidence.
 * - It always downloads translations first, and offline got's retry crashes the process at
 *   random ("The `onCancel` handler was attached after the promise settled"). Here its `got` is
 *   replaced by one that fails at once, so it never touches the network and prints its English
 *   "Could not retrieve updated translations" line instead.
 * - AvailableSecurityFixesGlobalCheck fetches Electron's release list; it is skipped, and the
 *   Electron version is given (from package.json) instead of detected.
 * A file it could not parse, a scan that loaded no check or no file, or a changed package layout
 * fails the run with the reason: a scan that did not happen is never reported as a pass.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface Finding {
  readonly id: string
  readonly severity: { readonly name: string; readonly value: number }
  readonly confidence: { readonly name: string; readonly value: number }
  readonly file: string
  readonly location: { readonly line: number; readonly column: number }
  readonly sample?: string
  readonly description: string
  readonly manualReview?: boolean
}

export interface ScanResult {
  readonly issues: readonly Finding[]
  readonly errors: readonly { file: string; message: string; tolerable: boolean }[]
  readonly atomicChecks: number
  readonly globalChecks: number
}

interface RunOptions {
  input: string
  output: undefined
  isSarif: false
  customScan: string[]
  excludeFromScan: string[]
  severitySet: undefined
  confidenceSet: undefined
  isRelative: boolean
  isVerbose: boolean
  electronUpgrade: undefined
  electronVersionOverride: string
  parserPlugins: string[]
}

type Runner = (options: RunOptions, forCli: boolean) => Promise<ScanResult | undefined>

const PACKAGE = '@doyensec/electronegativity'
/** Checks that need the network; see the header. */
const OFFLINE_EXCLUDED = ['AvailableSecurityFixesGlobalCheck']

const require = createRequire(import.meta.url)

/**
 * Loads the runner with its translation download cut off. Throws with the reason when the
 * package is missing or its layout changed (then this wrapper needs a look, not a silent pass).
 */
export function loadRunner(): Runner {
  let i18nFile: string
  let runnerFile: string
  try {
    runnerFile = require.resolve(`${PACKAGE}/dist/runner.js`)
    i18nFile = require.resolve(`${PACKAGE}/dist/locales/i18n.js`)
  } catch (error) {
    throw new Error(
      `${PACKAGE} is not installed or its dist/ layout changed (npm ci installs it): ${String(error)}`,
      { cause: error },
    )
  }
  const gotFile = createRequire(i18nFile).resolve('got')
  const offlineGot = () =>
    Promise.reject(new Error('electronegativity runs offline here: translations not fetched'))
  require.cache[gotFile] = {
    id: gotFile,
    filename: gotFile,
    loaded: true,
    exports: offlineGot,
  } as unknown as NodeJS.Module
  const loaded: unknown = require(runnerFile)
  if (typeof loaded !== 'function') {
    throw new Error(`${runnerFile} no longer exports the runner function`)
  }
  return loaded as Runner
}

/** The Electron version the app is built against, from package.json (no detection, no network). */
export function electronVersion(packageJson: string): string {
  const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    devDependencies?: Record<string, string>
    dependencies?: Record<string, string>
  }
  const spec = pkg.devDependencies?.['electron'] ?? pkg.dependencies?.['electron']
  const version = spec?.match(/\d+\.\d+\.\d+/)?.[0]
  if (!version) throw new Error(`no pinned electron version in ${packageJson}`)
  return version
}

/** The checks that read package.json; the others (and the global ones) need the code. */
export const PACKAGE_JSON_CHECKS = [
  'ElectronVersionJSONCheck',
  'CustomArgumentsJSONCheck',
  'SecurityWarningsDisabledJSONCheck',
]

/**
 * Scans `input` (a folder or one file) with every check, or only `checks`, and returns what
 * Electronegativity found.
 */
export async function scan(
  run: Runner,
  input: string,
  version: string,
  checks: readonly string[] = [],
): Promise<ScanResult> {
  const result = await run(
    {
      input: resolve(input),
      output: undefined,
      isSarif: false,
      customScan: [...checks],
      // A custom list already leaves the network check out; excluding it too is an error there.
      excludeFromScan: checks.length > 0 ? [] : OFFLINE_EXCLUDED,
      severitySet: undefined,
      confidenceSet: undefined,
      isRelative: true,
      isVerbose: true,
      electronUpgrade: undefined,
      electronVersionOverride: version,
      parserPlugins: [],
    },
    false,
  )
  if (!result) throw new Error(`${PACKAGE} returned no result for ${input}`)
  if (result.atomicChecks === 0) throw new Error(`${PACKAGE} loaded no checks for ${input}`)
  return result
}

/**
 * Files Electronegativity reads in a folder, by its own rule: .js/.jsx/.ts/.tsx/.html/.htm and
 * package.json, outside node_modules. The preload is `.cjs`, which it skips; nothing of what it
 * checks lives there (test/electron/preload.test.ts covers the preload).
 */
export function scannedFiles(dir: string): string[] {
  const found: string[] = []
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name)
      if (name === 'node_modules') continue
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(jsx?|tsx?|html?)$/.test(name) || name === 'package.json') found.push(path)
    }
  }
  walk(dir)
  return found
}

export interface Verdict {
  readonly failures: readonly string[]
  readonly lines: readonly string[]
}

/**
 * Whether a finding fails the run: every HIGH one, and a MEDIUM one the tool is sure of (FIRM or
 * CERTAIN) unless it only asks for a review. `webSecurity: false`, for one,
 * is MEDIUM/CERTAIN to it. TENTATIVE and review-only findings are listed for a human.
 */
export function fails(issue: Finding): boolean {
  if (issue.severity.name === 'HIGH') return true
  return (
    issue.severity.name === 'MEDIUM' &&
    issue.manualReview !== true &&
    (issue.confidence.name === 'FIRM' || issue.confidence.name === 'CERTAIN')
  )
}

/** Fails on the findings `fails` picks and every file that could not be parsed; lists the rest. */
export function judge(results: readonly ScanResult[]): Verdict {
  const failures: string[] = []
  const lines: string[] = []
  for (const { issues, errors } of results) {
    for (const error of errors) {
      const line = `parse ${error.tolerable ? 'warning' : 'ERROR'} in ${error.file}: ${error.message}`
      lines.push(line)
      if (!error.tolerable) failures.push(line)
    }
    for (const issue of issues) {
      const line =
        `${issue.severity.name}/${issue.confidence.name} ${issue.id} ${issue.file}:` +
        `${issue.location.line}:${issue.location.column}${issue.manualReview ? ' (review)' : ''}` +
        ` - ${issue.description}${issue.sample ? `\n      ${issue.sample.slice(0, 160)}` : ''}`
      lines.push(line)
      if (fails(issue)) failures.push(line)
    }
  }
  return { failures, lines }
}

/**
 * The renderer's script bundles cannot be parsed by the tool (its parser predates the ES2022
 * class fields the UI libraries ship), so their parse errors do not fail the run: they are
 * listed as not scanned. The renderer runs sandboxed and isolated, with no Node, and its HTML
 * (the CSP) and the main process are still scanned; everything else unparsed still fails.
 */
function withRendererBundlesSkipped(result: ScanResult, assets: string): ScanResult {
  const skipped = result.errors.filter((error) => error.file.startsWith(assets))
  for (const error of skipped) {
    console.log(`electronegativity: not scanned: ${error.file} (${error.message})`)
  }
  return { ...result, errors: result.errors.filter((error) => !skipped.includes(error)) }
}

async function main(): Promise<number> {
  const root = resolve(import.meta.dirname, '../..')
  const out = join(root, 'out')
  const mainBundle = join(out, 'main', 'index.js')
  if (!existsSync(mainBundle)) {
    console.error(
      `electronegativity: ${relative(root, mainBundle)} is missing; run npm run build first`,
    )
    return 1
  }
  const files = scannedFiles(out)
  if (!files.includes(mainBundle)) {
    console.error(
      `electronegativity: it would not read ${relative(root, mainBundle)}; nothing to vouch for`,
    )
    return 1
  }
  const version = electronVersion(join(root, 'package.json'))
  const run = loadRunner()
  const results = [
    await scan(run, out, version),
    await scan(run, join(root, 'package.json'), version, PACKAGE_JSON_CHECKS),
  ].map((result) => withRendererBundlesSkipped(result, join(out, 'renderer', 'assets')))
  const { failures, lines } = judge(results)
  const checks = results[0]?.atomicChecks ?? 0
  console.log(
    `electronegativity on out/ (${files.length} files) and package.json, Electron ${version}, ` +
      `${checks} checks (skipped offline: ${OFFLINE_EXCLUDED.join(', ')})`,
  )
  for (const line of lines) console.log(`  ${line}`)
  if (failures.length > 0) {
    console.error(`electronegativity: ${failures.length} failing finding(s) or unparsed file(s):`)
    for (const failure of failures) console.error(`  ${failure}`)
    return 1
  }
  console.log(`electronegativity: nothing failing (${lines.length} lesser findings listed above)`)
  return 0
}

const isEntry =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (isEntry) {
  main().then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      console.error(
        `electronegativity could not run: ${error instanceof Error ? error.message : String(error)}`,
      )
      process.exitCode = 1
    },
  )
}
