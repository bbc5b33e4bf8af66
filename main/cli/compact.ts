import { uncompactSession } from '../core/compaction/compactor.js'
import type { CompactResult } from '../core/compaction/compactor.js'
import { compactNow } from '../core/host/runtime/agent-setup.js'
import type { Config } from '../core/host/settings/config.js'
import { Session } from '../core/log/index.js'
import type { Store } from '../core/store/index.js'
import { sessionTokens } from '../core/tokens/index.js'
import { connectTarget, resolveModel } from './model.js'
import type { ModelFlags } from './model.js'
import { repairOptions } from '../core/host/runtime/subagents.js'

/**
 * `bridle compact <sessionId> [--focus TEXT]`: replaces the early part of the session's view
 * with a summary now, whatever the threshold. Ctrl+C cancels and changes nothing.
 */
export async function compactCommand(
  opts: ModelFlags & {
    readonly store: Store
    readonly sessionId: string
    readonly focus?: string
    readonly config: Config
  },
): Promise<CompactResult> {
  const choice = await connectTarget(resolveModel(opts), {
    ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }),
  })
  const session = Session.open(opts.store, opts.sessionId, repairOptions(opts.store))
  const controller = new AbortController()
  const onSigint = () => {
    controller.abort()
  }
  process.once('SIGINT', onSigint)
  try {
    return await compactNow(session, {
      model: choice,
      config: opts.config,
      count: sessionTokens(session.slice(), choice.model).total,
      signal: controller.signal,
      ...(opts.focus === undefined ? {} : { focus: opts.focus }),
    })
  } finally {
    process.off('SIGINT', onSigint)
    session.close()
  }
}

/** `bridle uncompact <sessionId> <checkpointSeq>`: puts a checkpoint's originals back in view. */
export async function uncompactCommand(
  store: Store,
  sessionId: string,
  checkpointSeq: number,
): Promise<void> {
  const session = Session.open(store, sessionId, repairOptions(store))
  try {
    await uncompactSession(session, checkpointSeq)
  } finally {
    session.close()
  }
}
