/**
 * `npm run bench`: every figure printed as a table and written to test-results/bench.json as
 * `[{ name, value, unit, target, ok }]`. Figures, not pass/fail: compare them across commits on
 * the same machine. Exits 0 even when a target is missed; the table says which.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { benchBridge } from './bridge-bench.js'
import { browserBenchUnavailable } from './browser.js'
import { benchChat } from './chat-bench.js'
import { benchCli } from './cli-bench.js'
import { benchCodeMode } from './code-mode-bench.js'
import { benchFileTools } from './file-tools-bench.js'
import { printFigures } from './figures.js'
import type { Figure } from './figures.js'
import { benchInspector } from './inspector-bench.js'
import { benchLog } from './log-bench.js'
import { benchLocalModels } from './local-models-bench.js'
import { benchLoop } from './loop-bench.js'
import { benchSafety } from './safety-bench.js'
import { benchTokens } from './tokens-bench.js'

const started = performance.now()
const figures: Figure[] = [
  ...(await benchLog()),
  ...(await benchLoop()),
  ...(await benchCli()),
  ...(await benchBridge()),
  ...(await benchTokens()),
  ...(await benchLocalModels()),
  ...(await benchSafety()),
  ...(await benchFileTools()),
  ...(await benchCodeMode()),
]
// The renderer in Chromium: a 10k-message chat and a 200k-event inspector (`npm run bench`
// builds the renderer first).
const unavailable = browserBenchUnavailable()
if (unavailable === undefined) figures.push(...(await benchChat()), ...(await benchInspector()))
else console.log(`skipping the browser benchmarks: ${unavailable}`)

console.log(
  `\nBridle bench on node ${process.versions.node}, ${process.platform}/${process.arch}\n`,
)
printFigures(figures)
mkdirSync('test-results', { recursive: true })
writeFileSync('test-results/bench.json', `${JSON.stringify(figures, null, 2)}\n`)
console.log(
  `\nwrote test-results/bench.json in ${((performance.now() - started) / 1000).toFixed(1)} s`,
)
