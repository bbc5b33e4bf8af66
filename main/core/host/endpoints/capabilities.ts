/**
 * What Bridle knows about each endpoint and model beyond config.json: the last capability probe
 * and what servers taught it by refusing (tools as text, no `stream_options`, reasoning sent
 * back, a smaller window than advertised). Kept in `<home>/capabilities.json`, keyed by base URL
 * and model, and dropped when the server reports another version than when it was learnt, so a
 * server upgraded since is looked at afresh. A file that cannot be read is treated as empty:
 * everything in it can be learnt again.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { ProbeReport } from '../../../../protocol/probe-report.js'
import { writeFileAtomic } from '../files.js'

export const CAPABILITIES_FILE = 'capabilities.json'

/** What refusals and cut prompts taught, as profile overrides plus the honoured window. */
export const Learned = z.object({
  toolCalls: z.enum(['native', 'native-nonstream', 'text']).optional(),
  streamUsage: z.boolean().optional(),
  replayReasoning: z.boolean().optional(),
  /** The window the server was seen to honour (a cut prompt, an overflow naming n_ctx). */
  contextWindow: z.number().int().positive().optional(),
})
export type Learned = z.infer<typeof Learned>

export const CapabilityRecord = z.object({
  baseUrl: z.string(),
  model: z.string(),
  /** The server's version when this was learnt; another version makes the record stale. */
  serverVersion: z.string().optional(),
  updatedAt: z.number().int().nonnegative(),
  probe: ProbeReport.optional(),
  learned: Learned.optional(),
})
export type CapabilityRecord = z.infer<typeof CapabilityRecord>

const CapabilitiesFile = z.object({
  version: z.literal(1),
  records: z.array(CapabilityRecord),
})

export class CapabilityStore {
  private readonly path: string

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(home, CAPABILITIES_FILE)
  }

  /**
   * The record of a model on an endpoint; undefined when there is none, or when `serverVersion`
   * is known and differs from the one it was learnt with.
   */
  get(baseUrl: string, model: string, serverVersion?: string): CapabilityRecord | undefined {
    const record = this.read().find((r) => r.baseUrl === normal(baseUrl) && r.model === model)
    if (record === undefined) return undefined
    const isStale =
      serverVersion !== undefined &&
      record.serverVersion !== undefined &&
      record.serverVersion !== serverVersion
    return isStale ? undefined : record
  }

  /** Keeps a probe's report (it replaces what was learnt before: the probe saw the server as it is). */
  saveProbe(report: ProbeReport): void {
    this.update(report.baseUrl, report.model, () => ({
      ...(report.serverVersion === undefined ? {} : { serverVersion: report.serverVersion }),
      probe: report,
    }))
  }

  /** Adds what a refusal or a cut prompt taught. */
  learn(baseUrl: string, model: string, learned: Learned, serverVersion?: string): void {
    this.update(baseUrl, model, (old) => ({
      ...(old?.probe === undefined ? {} : { probe: old.probe }),
      ...((serverVersion ?? old?.serverVersion) === undefined
        ? {}
        : { serverVersion: serverVersion ?? old?.serverVersion }),
      learned: { ...old?.learned, ...learned },
    }))
  }

  private update(
    baseUrl: string,
    model: string,
    change: (
      old: CapabilityRecord | undefined,
    ) => Omit<CapabilityRecord, 'baseUrl' | 'model' | 'updatedAt'>,
  ): void {
    const records = this.read()
    const at = records.findIndex((r) => r.baseUrl === normal(baseUrl) && r.model === model)
    const next: CapabilityRecord = {
      baseUrl: normal(baseUrl),
      model,
      updatedAt: this.now(),
      ...change(at < 0 ? undefined : records[at]),
    }
    if (at < 0) records.push(next)
    else records[at] = next
    writeFileAtomic(this.path, [`${JSON.stringify({ version: 1, records }, null, 2)}\n`])
  }

  private read(): CapabilityRecord[] {
    if (!existsSync(this.path)) return []
    try {
      const parsed = CapabilitiesFile.safeParse(JSON.parse(readFileSync(this.path, 'utf8')))
      return parsed.success ? parsed.data.records : []
    } catch {
      // Unreadable: start over; nothing in it is more than a cache.
      return []
    }
  }
}

function normal(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '')
}
