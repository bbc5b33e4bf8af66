/**
 * `npm run bench`: every figure printed as a table and written to test-results/bench.json as
 * `[{ name, value, unit, target, ok }]`. Figures, not pass/fail: compare them across commits on
 * the same machine. Exits 0 even when a target is missed; the table says which.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { benchBridge } from './bridge-bench.js'
import type { Figure } from './figures.js'
import { benchLog } from './log-bench.js'
import { benchLoop } from './loop-bench.js'
import { benchTokens } from './tokens-bench.js'

const started = performance.now()
const figures: Figure[] = [
  ...(await benchLog()),
  ...(await benchLoop()),
  ...(await benchBridge()),
  ...(await benchTokens()),
]

console.log(
  `\nBridle bench on node ${process.versions.node}, ${process.platform}/${process.arch}\n`,
)
const width = Math.max(...figures.map((f) => f.name.length))
for (const f of figures) {
  const value = `${f.value.toLocaleString('en', { maximumFractionDigits: 3 })} ${f.unit}`
  const verdict = f.target === null ? '' : `${f.ok ? 'ok  ' : 'MISS'} target ${f.target}`
  console.log(`${f.name.padEnd(width)}  ${value.padStart(18)}  ${verdict}`)
}
mkdirSync('test-results', { recursive: true })
writeFileSync('test-results/bench.json', `${JSON.stringify(figures, null, 2)}\n`)
console.log(
  `\nwrote test-results/bench.json in ${((performance.now() - started) / 1000).toFixed(1)} s`,
)
