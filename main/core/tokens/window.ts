/**
 * The context window a session plans for, and the alarm for a server that silently cuts the
 * prompt. A server that runs a smaller window than it advertises (Ollama at its default
 * `num_ctx`, a llama.cpp server started with a small `-c`) keeps the end of the prompt and drops
 * the start: the system prompt and the tools. It says so only through the prompt tokens it
 * reports, which then stop at its window (or at half of it, plus two, in Ollama's 2026 builds)
 * whatever is sent. So a report far below what was sent, at a size a window can have, means
 * the prompt was cut: the window is lowered to what the server honours, compaction follows it,
 * and the sample is not learnt from.
 */

/** The error code of a reply whose prompt the server cut (logged by the loop). */
export const CONTEXT_TRUNCATED_BY_SERVER = 'CONTEXT_TRUNCATED_BY_SERVER'

/** A report below this share of the estimate is "far fewer" than was sent. */
export const TRUNCATION_RATIO = 0.6
/** Prompts smaller than this are too small for the alarm (template costs dominate). */
const MIN_PROMPT_FOR_ALARM = 1024
/** The windows servers run by default or are usually set to, in tokens. */
const COMMON_WINDOWS = [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]

export interface TruncationFinding {
  /** The window the server honours, as far as its report tells. */
  readonly honouredWindow: number
  readonly sent: number
  readonly reported: number
}

/**
 * Whether a reply's reported prompt tokens show the prompt was cut. `sent` is the calibrated
 * estimate of the prompt; `knownWindow`, a window the server itself reports running (not the
 * trained length): a prompt that fitted it cannot have been cut. A report of only the uncached
 * part of a prompt is small, and is not taken for a cut: the report must reach at least half of
 * a common window size that the prompt exceeded.
 */
export function detectTruncation(input: {
  readonly sent: number
  readonly reported: number
  readonly knownWindow?: number
  /**
   * Whether `sent` is calibrated by earlier reports of this model (default true). A first
   * estimate may be far off for a tokenizer unlike ours (much CJK text): then only a report close
   * under a window (or exactly at one) counts, not one anywhere in its upper half.
   */
  readonly isCalibrated?: boolean
}): TruncationFinding | undefined {
  const { sent, reported, knownWindow } = input
  const lowest = input.isCalibrated === false ? UNCALIBRATED_SHARE : 0.5
  if (sent < MIN_PROMPT_FOR_ALARM || reported >= sent) return undefined
  if (knownWindow !== undefined && sent <= knownWindow) return undefined
  const candidates = knownWindow === undefined ? COMMON_WINDOWS : [knownWindow, ...COMMON_WINDOWS]
  // A count that stops exactly at a window (or at half of it plus two) while clearly more was
  // sent is the server's own signature, whatever the difference between the tokenizers.
  const exact = candidates.find(
    (window) =>
      (reported === window || reported === window / 2 + 2) && sent > window * EXACT_MARGIN,
  )
  if (exact !== undefined) return { honouredWindow: exact, sent, reported }
  if (reported >= TRUNCATION_RATIO * sent) return undefined
  const honoured = candidates
    .filter((window) => reported <= window && reported >= window * lowest - 64 && sent > window)
    .sort((a, b) => a - b)[0]
  return honoured === undefined ? undefined : { honouredWindow: honoured, sent, reported }
}

/** Without calibration, how close under a window a report must be to mean a cut. */
const UNCALIBRATED_SHARE = 0.9
/** How much more than a window the estimate must be for a count exactly at it to mean a cut. */
const EXACT_MARGIN = 1.1

export type WindowSource =
  /** `--context-window`, or config.json's `contextWindow`. */
  | 'configured'
  /** What the server says it runs (`/props` n_ctx, `/api/ps`, LM Studio's loaded context). */
  | 'server'
  /** The model's trained length or a listed maximum: the server may run less. */
  | 'advertised'
  /** A server default Bridle assumed (Ollama's `num_ctx` by version). */
  | 'default'
  /** What a capability probe measured. */
  | 'probed'
  /** Lowered after the server cut a prompt or refused one as too long. */
  | 'learned'

/**
 * The window a session plans for; compaction reads it before every step, so lowering it (after
 * a cut prompt, or an overflow error that names the server's `n_ctx`) takes effect at once.
 */
export class ContextWindow {
  private current: number | undefined
  private from: WindowSource

  /** `onLower`: told each time the window is lowered (to keep what was learnt). Must not throw. */
  constructor(
    tokens: number | undefined,
    source: WindowSource,
    private readonly onLower?: (tokens: number) => void,
  ) {
    this.current = tokens
    this.from = source
  }

  get tokens(): number | undefined {
    return this.current
  }

  get source(): WindowSource {
    return this.from
  }

  /** A window the server itself runs: the alarm trusts a prompt that fitted it. */
  get serverWindow(): number | undefined {
    return this.from === 'server' || this.from === 'probed' || this.from === 'learned'
      ? this.current
      : undefined
  }

  /** Lowers the window (never raises it): the server showed it honours only `tokens`. */
  lower(tokens: number): boolean {
    if (!(Number.isInteger(tokens) && tokens > 0)) return false
    if (this.current !== undefined && this.current <= tokens) return false
    this.current = tokens
    this.from = 'learned'
    this.onLower?.(tokens)
    return true
  }
}
