/** One measured figure. `target` is a human-readable goal; `ok` says whether it was met. */
export interface Figure {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly target: string | null
  readonly ok: boolean
}

export function figure(
  name: string,
  value: number,
  unit: string,
  target?: { text: string; isMet: boolean },
): Figure {
  return {
    name,
    value: Number(value.toPrecision(4)),
    unit,
    target: target?.text ?? null,
    ok: target?.isMet ?? true,
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
