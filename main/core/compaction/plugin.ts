import type { Plugin } from '../kernel/index.js'
import type { Session } from '../log/session.js'
import type { LoopEvents } from '../loop/agent.js'
import { compactSession, roughCount } from './compactor.js'
import type { CompactOptions, CompactResult } from './compactor.js'
import { DEFAULT_PRUNE, pruneOldOutputs } from './prune.js'
import type { PruneOptions } from './prune.js'

export const DEFAULT_COMPACTION_THRESHOLD = 0.8

export interface AutoCompactionOptions extends Omit<CompactOptions, 'signal' | 'focus'> {
  /**
   * The model's context window in tokens, read before every step (it may be lowered while the
   * session runs: a server that cut a prompt); undefined: nothing compacts by itself.
   */
  readonly contextWindow: number | (() => number | undefined)
  /** Compact when the next request would fill more than this share of the window. */
  readonly threshold?: number
  /**
   * Past the threshold, first take large old tool outputs out of view (cheap); summarise only if
   * that is not enough. `false` skips pruning.
   */
  readonly prune?: PruneOptions | false
  /** Told about every compaction attempt (for the CLI's note line and the UI). */
  readonly onCompacted?: (result: CompactResult) => void
}

/**
 * Joins `loop/pre-step`: before a step, counts what its request would carry (the derived
 * messages, the tools and the step's new input) and compacts when that passes the threshold of
 * the window. A failed summary leaves the view as it was and the step runs anyway; the server
 * may still refuse an over-long request, which the loop reports.
 */
export function compactionPlugin(opts: AutoCompactionOptions): Plugin<LoopEvents, object> {
  const { contextWindow } = opts
  const windowOf = (): number | undefined =>
    typeof contextWindow === 'number' ? contextWindow : contextWindow()
  return {
    name: 'compaction',
    setup: (ctx) =>
      void ctx.on('loop/pre-step', async (input, next) => {
        const window = windowOf()
        if (window === undefined) return next(input)
        const pending = input.claimed.map((c) => c.message)
        await fitToWindow(input.session, window, opts, input.signal, pending)
        return next(input)
      }),
  }
}

/**
 * Brings the view under the threshold of `window`: large old outputs out of view first (cheap),
 * then a summary, then, if still over (a huge recent output in a small window), every large
 * output, the last steps' too; each stub says how to read it again. `pending`: input the next
 * request will carry that is not logged yet. Resolves whether the view got smaller. Used before
 * every step and when a server refuses a prompt as too long.
 */
export async function fitToWindow(
  session: Session,
  window: number,
  opts: Omit<AutoCompactionOptions, 'contextWindow'>,
  signal: AbortSignal,
  pending: readonly string[] = [],
): Promise<boolean> {
  const threshold = opts.threshold ?? DEFAULT_COMPACTION_THRESHOLD
  const count = opts.count ?? roughCount
  const tools = session.latestHeader()?.data.tools.map((tool) => ({ ...tool })) ?? []
  const extra = pending.map((content) => ({
    role: 'user' as const,
    kind: 'input' as const,
    content,
    seq: session.length,
  }))
  const measure = () => count([...session.deriveMessages(), ...extra], tools)
  const limit = threshold * window
  const before = measure()
  if (before <= limit) return false
  if (opts.prune !== false) await pruneOldOutputs(session, opts.prune ?? DEFAULT_PRUNE)
  if (measure() > limit) {
    const { prune: _prune, ...compactOpts } = opts
    const result = await compactSession(session, {
      ...compactOpts,
      count,
      signal,
      keepTailTokens: opts.keepTailTokens ?? Math.ceil(window * (1 - threshold) * 0.8),
    })
    opts.onCompacted?.(result)
    if (measure() > limit && opts.prune !== false) {
      await pruneOldOutputs(session, { ...(opts.prune ?? DEFAULT_PRUNE), keepSteps: 0 })
    }
  }
  return measure() < before
}
