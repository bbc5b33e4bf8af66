import { CapabilityStore } from '../core/host/endpoints/capabilities.js'
import { describeListFailure } from '../core/host/endpoints/check.js'
import { probeEndpointModel } from '../core/host/endpoints/probe-card.js'
import { listModels } from '../core/models/discovery.js'
import type { ProbeReport } from '../core/host/endpoints/probe.js'
import { resolveModel } from './model.js'
import type { ModelFlags } from './model.js'

/** How long the probe waits for the server's listing. */
const LISTING_TIMEOUT_MS = 5_000

/**
 * `bridle probe`: a capability probe of the endpoint's model (the flags', else config.json's
 * default), kept in the data folder's capabilities.json. A server that cannot be reached fails
 * at once with what to do; every other failure is a line of the report.
 */
export async function probeCommand(
  flags: ModelFlags & { readonly dataDir: string; readonly contextTokens?: number },
): Promise<ProbeReport> {
  const target = resolveModel(flags)
  const listing = await listModels(target.endpoint, { timeoutMs: LISTING_TIMEOUT_MS })
  if (!listing.ok && listing.error.code === 'ENDPOINT_UNREACHABLE') {
    throw new Error(
      describeListFailure(listing.error, {
        baseUrl: target.endpoint.baseUrl,
        keySent: target.endpoint.apiKey !== undefined,
        isSaved: target.entry.override === undefined,
        timeoutMs: LISTING_TIMEOUT_MS,
      }),
    )
  }
  const controller = new AbortController()
  const onSigint = () => controller.abort()
  process.once('SIGINT', onSigint)
  try {
    return await probeEndpointModel({
      entry: target.entry,
      endpoint: target.endpoint,
      model: target.model,
      listing,
      capabilities: new CapabilityStore(flags.dataDir),
      signal: controller.signal,
      ...(flags.contextTokens === undefined ? {} : { contextTokens: flags.contextTokens }),
    })
  } finally {
    process.off('SIGINT', onSigint)
  }
}
