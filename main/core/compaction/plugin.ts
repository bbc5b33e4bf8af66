import type { Plugin } from '../kernel/index.js'
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
export function compactionPlugin(
  opts: AutoCompactionOptions,
): Plugin<LoopEvents, Record<string, never>> {
  const threshold = opts.threshold ?? DEFAULT_COMPACTION_THRESHOLD
  const count = opts.count ?? roughCount
  const { contextWindow } = opts
  const windowOf = (): number | undefined =>
    typeof contextWindow === 'number' ? contextWindow : contextWindow()
  return {
    name: 'compaction',
    setup: (ctx) =>
      void ctx.on('loop/pre-step', async (input, next) => {
        const { session } = input
        const window = windowOf()
        if (window === undefined) return next(input)
        const tools = session.latestHeader()?.data.tools.map((tool) => ({ ...tool })) ?? []
        const pending = input.claimed.map((c) => ({
          role: 'user' as const,
          kind: 'input' as const,
          content: c.message,
          seq: session.length,
        }))
        const measure = () => count([...session.deriveMessages(), ...pending], tools)
        const limit = threshold * window
        if (measure() > limit && opts.prune !== false) {
          await pruneOldOutputs(session, opts.prune ?? DEFAULT_PRUNE)
        }
        if (measure() > limit) {
          const { prune: _prune, contextWindow: _window, ...compactOpts } = opts
          const result = await compactSession(session, {
            ...compactOpts,
            count,
            signal: input.signal,
            keepTailTokens: opts.keepTailTokens ?? Math.ceil(window * (1 - threshold) * 0.8),
          })
          opts.onCompacted?.(result)
          // Still too big (a huge recent output in a small window): every large output leaves
          // the view, the last steps' too; each stub says how to read it again.
          if (measure() > limit && opts.prune !== false) {
            await pruneOldOutputs(session, { ...(opts.prune ?? DEFAULT_PRUNE), keepSteps: 0 })
          }
        }
        return next(input)
      }),
  }
}
