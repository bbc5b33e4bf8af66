import { visibleLines } from '../../protocol/visible-text.js'

/**
 * The CLI's only ways to write to its stdout and stderr. What it prints is mostly someone else's
 * text: a model's answer and calls, a tool's output, a server's error, a session's title, a log
 * replayed by `show` or `events`. Every write passes through `visibleLines`, so no control
 * character (ESC, CR, BEL, an OSC 52 clipboard write, a C1 CSI), bidi control or zero-width
 * character reaches the terminal as itself: each shows as a `\uXXXX` escape, and newlines and
 * tabs stay. The log keeps the original text; only what is shown is escaped. Bridle prints no
 * colours or other sequences of its own, so nothing of its own is lost; if it ever does, they
 * must be added after this escaping, never passed through it. JSON output stays valid JSON of the
 * same value (see `visibleLines`).
 *
 * Escaping is per character and stateless, so text streamed in chunks is escaped the same
 * whichever way it was split.
 */
export const writeOut = (text: string): void => {
  process.stdout.write(visibleLines(text))
}

export const writeErr = (text: string): void => {
  process.stderr.write(visibleLines(text))
}

/**
 * For a file's exact bytes (`export` without `--out`): kept as they are when stdout is a pipe or
 * a file, so the export is the same as `--out` writes; escaped when it is a terminal.
 */
export const writeData = (text: string): void => {
  process.stdout.write(process.stdout.isTTY ? visibleLines(text) : text)
}
