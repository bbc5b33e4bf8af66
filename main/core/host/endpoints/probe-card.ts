/**
 * Running a capability probe for an endpoint's model and saying what it found, in words a
 * person reads: the CLI prints the card, the settings show the same facts (the renderer words
 * them from the report itself).
 */
import type { ProbeReport } from '../../../../protocol/probe-report.js'
import { probeRows, serverName } from '../../../../protocol/probe-words.js'
import type { ListModelsResult } from '../../models/discovery.js'
import { probeModel } from './probe.js'
import type { EndpointConfig } from '../../models/types.js'
import type { CapabilityStore } from './capabilities.js'
import type { EndpointEntry } from './resolve.js'
import { connectModel } from './connection.js'

export interface ProbeInputs {
  readonly entry: EndpointEntry
  readonly endpoint: EndpointConfig
  readonly model: string
  readonly listing: ListModelsResult
  readonly capabilities?: CapabilityStore
  readonly contextTokens?: number
  readonly signal?: AbortSignal
}

/** Probes the model the way Bridle talks to it (API and num_ctx from its profile), and keeps the report. */
export async function probeEndpointModel(inputs: ProbeInputs): Promise<ProbeReport> {
  const connection = connectModel({
    entry: inputs.entry,
    endpoint: inputs.endpoint,
    model: inputs.model,
    listing: inputs.listing,
  })
  const { wire } = connection.profile
  const report = await probeModel({
    endpoint: inputs.endpoint,
    model: inputs.model,
    api: wire.api,
    kind: connection.kind,
    listing: inputs.listing,
    ...(wire.numCtx === undefined ? {} : { numCtx: wire.numCtx }),
    ...(inputs.contextTokens === undefined ? {} : { contextTokens: inputs.contextTokens }),
    ...(inputs.signal === undefined ? {} : { signal: inputs.signal }),
  })
  try {
    inputs.capabilities?.saveProbe(report)
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return { ...report, notes: [...report.notes, `the report could not be kept: ${why}`] }
  }
  return report
}

/** The card as lines of text (the CLI's `bridle probe`). */
export function probeCardLines(report: ProbeReport, endpointId = 'cli'): string[] {
  const server = serverName(report.kind, report.serverVersion)
  return [
    `${report.model} at ${report.baseUrl} (${server}), probed in ${(report.durationMs / 1000).toFixed(1)} s`,
    ...probeRows(report, endpointId).map(({ label, text }) => `  ${label.padEnd(12)} ${text}`),
  ]
}
