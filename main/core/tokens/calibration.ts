/**
 * Learns, per model, how far our estimate is from the prompt tokens the server reports, so that
 * estimates for families without a bundled tokenizer track the real tokenizer and chat template.
 */

/** A ratio is never learnt outside these bounds: one bad report cannot wreck the budget. */
export const CALIBRATION_MIN = 0.5
export const CALIBRATION_MAX = 2
/** The weight of a new sample once a model has a few; lower is smoother. */
const SMOOTHING = 0.2
/** Below this many estimated tokens, fixed template costs swamp the ratio: not learnt from. */
const MIN_ESTIMATE = 32
/**
 * Once a ratio is settled, a report this far below it most likely counts only the uncached part
 * of the prompt (Ollama reports only what it evaluated), so it is ignored.
 */
const SETTLED_SAMPLES = 3
const CACHED_REPORT_FACTOR = 0.6

interface Entry {
  ratio: number
  samples: number
}

export interface CalibrationJSON {
  readonly version: 1
  readonly models: Readonly<Record<string, { readonly ratio: number; readonly samples: number }>>
}

export class Calibration {
  private readonly entries = new Map<string, Entry>()

  /**
   * Records that a request we estimated at `estimated` tokens (uncalibrated, as
   * `MessageCount.uncalibrated`) was reported by the server as `reported` (`usage.inputTokens`).
   * The first samples are averaged, later ones blended in with a fixed weight (an EMA).
   */
  observe(model: string, estimated: number, reported: number): void {
    if (!Number.isFinite(estimated) || !Number.isFinite(reported)) return
    if (estimated < MIN_ESTIMATE || reported <= 0) return
    const sample = clamp(reported / estimated)
    const key = keyOf(model)
    const entry = this.entries.get(key)
    if (entry === undefined) {
      this.entries.set(key, { ratio: sample, samples: 1 })
      return
    }
    if (entry.samples >= SETTLED_SAMPLES && sample < entry.ratio * CACHED_REPORT_FACTOR) return
    const weight = Math.max(SMOOTHING, 1 / (entry.samples + 1))
    entry.ratio = clamp(entry.ratio + weight * (sample - entry.ratio))
    entry.samples++
  }

  /** The factor to multiply `model`'s estimates by: 1 until something was observed. */
  ratio(model: string): number {
    return this.entries.get(keyOf(model))?.ratio ?? 1
  }

  /** How many reports shaped `model`'s ratio. */
  samples(model: string): number {
    return this.entries.get(keyOf(model))?.samples ?? 0
  }

  toJSON(): CalibrationJSON {
    const models: Record<string, { ratio: number; samples: number }> = {}
    for (const [key, entry] of this.entries) models[key] = { ...entry }
    return { version: 1, models }
  }

  /**
   * Restores a saved calibration. Never throws: anything unreadable (another version, a hand
   * edit) is dropped, since a lost ratio only costs a few requests of relearning.
   */
  static fromJSON(json: unknown): Calibration {
    const calibration = new Calibration()
    if (!isRecord(json) || json.version !== 1 || !isRecord(json.models)) return calibration
    for (const [key, value] of Object.entries(json.models)) {
      if (!isRecord(value)) continue
      const { ratio, samples } = value
      if (typeof ratio !== 'number' || !Number.isFinite(ratio)) continue
      if (typeof samples !== 'number' || !Number.isInteger(samples) || samples < 1) continue
      calibration.entries.set(keyOf(key), { ratio: clamp(ratio), samples })
    }
    return calibration
  }
}

function keyOf(model: string): string {
  return model.trim().toLowerCase()
}

function clamp(ratio: number): number {
  return Math.min(CALIBRATION_MAX, Math.max(CALIBRATION_MIN, ratio))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
