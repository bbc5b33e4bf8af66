/**
 * The loop guard: a model stuck in a loop makes the same call again and again (twelve identical
 * `bash` calls in a row all ran before this existed). Two calls are the same when they name the
 * same tool with the same arguments after parsing (validated, schema defaults filled in, object
 * keys in any order). From the `repeats`th such call in a row in one turn (default 3; 0 turns the
 * guard off), the call is flagged: `ApprovalPolicy` then asks the user, or, with nobody to ask
 * (full-auto, a headless run), refuses it with REPEATED_CALL and the pipeline stops the turn.
 *
 * Only the model's own calls count, in the model's order (the calls of one reply in order, the
 * calls of the next reply after them); a program's inner calls (code mode) do not. A different
 * call in between starts the count again, and so does a new turn. A call the user allowed as a
 * repeat is not flagged again in that turn, however often it comes.
 */
import type { Session } from '../log/session.js'

/** The code of a call the loop guard refused; the turn it was made in is stopped. */
export const REPEATED_CALL = 'REPEATED_CALL'

/** From which identical call in a row the guard acts, unless config.json's `loopGuard` says. */
export const DEFAULT_LOOP_GUARD_REPEATS = 3

/** The `loopGuard` entry of config.json (protocol/settings.ts). */
export interface LoopGuardConfig {
  /** From which identical call in a row to ask or stop; 0 turns the guard off. */
  readonly repeats?: number
}

/** A call the guard flagged: the same call for the `count`th time in a row in this turn. */
export interface Repeat {
  readonly count: number
}

/** What the pipeline tells the guard of one call: its tool and arguments. */
export interface CallShape {
  readonly name: string
  /** The validated arguments; absent when the call failed before (then `raw` is compared). */
  readonly args?: unknown
  /** The arguments as the model sent them (JSON text). */
  readonly raw: string
}

/** One turn's streak: the last call, how many times in a row it came, what the user allowed. */
interface Streak {
  readonly turn: number
  last: string | undefined
  count: number
  readonly allowed: Set<string>
}

/** The guard of one pipeline: a streak per session, started again at each turn. */
export class RepeatGuard {
  private readonly streaks = new WeakMap<Session, Streak>()
  readonly repeats: number

  constructor(config: LoopGuardConfig = {}) {
    this.repeats = config.repeats ?? DEFAULT_LOOP_GUARD_REPEATS
  }

  /**
   * Counts the model's next call (calls must come in the model's order) and says whether it is a
   * repeat to ask about or refuse: undefined when the guard is off, the streak is short, or the
   * user already allowed this call in this turn.
   */
  next(session: Session, call: CallShape): Repeat | undefined {
    if (this.repeats <= 0) return undefined
    const streak = this.streakOf(session)
    const key = callKey(call)
    streak.count = streak.last === key ? streak.count + 1 : 1
    streak.last = key
    if (streak.count < this.repeats || streak.allowed.has(key)) return undefined
    return { count: streak.count }
  }

  /** The user allowed this call as a repeat: it is not flagged again in this turn. */
  allow(session: Session, call: CallShape): void {
    this.streakOf(session).allowed.add(callKey(call))
  }

  private streakOf(session: Session): Streak {
    const known = this.streaks.get(session)
    if (known?.turn === session.turn) return known
    const streak: Streak = { turn: session.turn, last: undefined, count: 0, allowed: new Set() }
    this.streaks.set(session, streak)
    return streak
  }
}

/** A call as the guard compares it: the tool's name and its arguments as canonical JSON. */
export function callKey(call: CallShape): string {
  if (call.args !== undefined) return `${call.name}\0${canonicalJson(call.args)}`
  try {
    return `${call.name}\0${canonicalJson(JSON.parse(call.raw))}`
  } catch {
    // Not JSON at all: the text itself is what the model repeated.
    return `${call.name}\0${call.raw.trim()}`
  }
}

/** JSON with every object's keys sorted, so `{a, b}` and `{b, a}` are the same text. */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : inner,
  ) as string | undefined
  // JSON.stringify gives undefined for what has no JSON (undefined itself): name it plainly.
  return text ?? String(value)
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ... */
export function ordinal(n: number): string {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  const suffix = ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'
  return `${n}${suffix}`
}

/** Why the call needs the user, as shown with the question (and logged as a warning). */
export const repeatWarning = (repeat: Repeat): string =>
  `the same call for the ${ordinal(repeat.count)} time in a row: the model may be stuck in a loop (allow it, and this same call is not asked about again in this turn)`

/** The `detail` of the guard's `approval/decided`. */
export const repeatDetail = (repeat: Repeat): string =>
  `loop guard: the same call for the ${ordinal(repeat.count)} time in a row`

/** What the model is told of a repeat that did not run. */
export const repeatRefusal = (tool: string, repeat: Repeat): string =>
  `This ${tool} call did not run: it is the same call (same tool, same arguments) for the ${ordinal(repeat.count)} time in a row, so Bridle stopped the turn as a likely loop. The earlier results of this call stand. Do not make it again unchanged: use what it returned, try a different approach, or tell the user what stands in your way.`

/** What the model is told of a call after the repeat, in the same reply: the turn had stopped. */
export const stoppedBefore = (tool: string, repeatId: string): string =>
  `This ${tool} call did not run: the turn was stopped at call ${repeatId} before it, the same call repeated too often in a row (a likely loop).`

/** Why the turn ended, for the user (the CLI and the chat show it with the turn's end). */
export function turnStopText(tool: string, args: unknown, repeat: Repeat): string {
  const shown = canonicalJson(args)
  const what = shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
  return `the model made the same ${tool} call ${repeat.count} times in a row (${what}); the ${ordinal(repeat.count)} did not run and the turn was stopped as a likely loop. Send a message to let the agent go on. "loopGuard": { "repeats": N } in config.json sets from which identical call this happens (0 turns it off).`
}
