#!/usr/bin/env node
/**
 * The `bridle` command's first file (package.json "bin", built to out/main/cli.js): it checks the
 * Node version before anything else loads, then imports the real entry (`bin.ts`).
 *
 * Contract: this file imports nothing statically and uses only syntax and APIs an old Node has,
 * because an ES module is parsed and linked whole before any of its code runs: a check inside
 * `bin.ts` would never run on Node 20, which stops at `enableCompileCache`, an export it lacks,
 * with a stack trace. `NEEDED` is package.json's `engines.node` (a test holds them equal).
 */
const NEEDED = '22.12'

const [needMajor = 0, needMinor = 0] = NEEDED.split('.').map(Number)
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    `bridle needs Node.js ${NEEDED} or newer; this is Node.js ${process.versions.node}.\n`,
  )
  process.exit(1)
}
await import('./bin.js')

export {}
