/**
 * One measured figure. `target` is a human-readable goal; `ok` says whether it was met;
 * `description`, when given, says in a sentence what was measured.
 */
export interface Figure {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly target: string | null
  readonly ok: boolean
  readonly description?: string
}

export function figure(
  name: string,
  value: number,
  unit: string,
  target?: { text: string; isMet: boolean },
  opts: { description?: string } = {},
): Figure {
  return {
    name,
    value: Number(value.toPrecision(4)),
    unit,
    target: target?.text ?? null,
    ok: target?.isMet ?? true,
    ...(opts.description === undefined ? {} : { description: opts.description }),
  }
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/** Times `body` once and returns milliseconds. */
export async function time(body: () => unknown): Promise<number> {
  const started = performance.now()
  await body()
  return performance.now() - started
}

/** p50 and p95 of frame times, the p95 held to the 60 Hz budget. */
export function frameFigures(name: string, times: readonly number[]): Figure[] {
  const p95 = percentile(times, 95)
  return [
    figure(`${name}: frame p50`, percentile(times, 50), 'ms'),
    figure(`${name}: frame p95`, p95, 'ms', { text: '< 16 ms', isMet: p95 < 16 }),
  ]
}

/** The figures as an aligned table on stdout. */
export function printFigures(figures: readonly Figure[]): void {
  const width = Math.max(...figures.map((f) => f.name.length))
  for (const f of figures) {
    const value = `${f.value.toLocaleString('en', { maximumFractionDigits: 3 })} ${f.unit}`
    const verdict = f.target === null ? '' : `${f.ok ? 'ok  ' : 'MISS'} target ${f.target}`
    console.log(`${f.name.padEnd(width)}  ${value.padStart(18)}  ${verdict}`)
    if (f.description !== undefined) console.log(`  ${f.description}`)
  }
}
