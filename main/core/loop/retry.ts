/** Retries of a model request that failed before its first streamed byte (docs/ARCHITECTURE.md 4, "Failures are data"). */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number
  readonly baseMs: number
  readonly maxMs: number
  /** Fraction of the delay added or removed at random, so clients do not retry in step. */
  readonly jitter: number
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseMs: 500, maxMs: 10_000, jitter: 0.1 }

/** The delay before retry number `attempt` (1-based): base * 2^(attempt-1), capped, jittered. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exact = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1))
  return Math.round(exact * (1 + policy.jitter * (2 * random() - 1)))
}

/** Resolves after `ms`, or early (returning false) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false)
      return
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
