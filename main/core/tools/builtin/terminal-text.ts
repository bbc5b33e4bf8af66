/**
 * Command output as the model should read it: what a terminal would have shown, with nothing
 * invisible left in it. Programs print for terminals (colours, progress bars redrawn with `\r`,
 * backspaces) even with NO_COLOR set; passed on raw, those bytes cost tokens and hide or reorder
 * text the model then misreads.
 *
 * - Escape sequences that only change how the current line looks are removed: SGR (colours,
 *   bold), erase in line (`ESC [ K`), cursor hide and show, OSC (window titles, hyperlinks:
 *   the link text stays, its target goes) and character set selection (`ESC ( B`, from `tput`).
 * - Other escape sequences (cursor moves, screen clears) are shown as text (`\x1b[2J`), because
 *   the lines are then not laid out as the terminal showed them, and the model should know.
 * - `\r` redraws: a line keeps what follows its last `\r` (ignoring empty redraws), and `\r\n`
 *   is a plain line end. Backspace deletes the character before it, as on a terminal (man pages'
 *   overstrike `_\bx` becomes `x`).
 * - Any other control character (C0, DEL, C1) is shown as `\xNN`, NUL as `\0`, as in a JS string
 *   literal; tab and newline stay. A literal `\x1b` printed by the program reads the same: the
 *   notation is for reading, not for reversing.
 */

/**
 * Escape sequences: CSI (parameters, intermediates, final byte: groups 1 and 2), OSC (ended by
 * BEL or ST) and character set selection. Matching terminal control bytes is the point here.
 */
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\x1b(?:\[([0-?]*)[ -/]*([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z])/g

/** Every control character (Unicode Cc: C0, DEL and C1) except tab and newline. */
const SHOWN_CONTROL = /(?![\t\n])\p{Cc}/gu
const HAS_SHOWN_CONTROL = /(?![\t\n])\p{Cc}/u

export function terminalText(text: string): string {
  // Most output has no control character at all: keep it as it is, without copying.
  if (!HAS_SHOWN_CONTROL.test(text)) return text
  let shown = text.replace(ESCAPE_SEQUENCE, (sequence, params?: string, final?: string) =>
    isAppearanceOnly(params, final) ? '' : sequence,
  )
  if (shown.includes('\r') || shown.includes('\b')) {
    shown = shown
      .split('\n')
      .map((line) => (line.includes('\r') || line.includes('\b') ? redrawnLine(line) : line))
      .join('\n')
  }
  return shown.replace(SHOWN_CONTROL, (char) =>
    char === '\0' ? '\\0' : `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  )
}

/** Whether a sequence only changes how the line looks (see the module comment); OSC and charset too. */
function isAppearanceOnly(params: string | undefined, final: string | undefined): boolean {
  if (final === undefined) return true
  return final === 'm' || final === 'K' || params === '?25'
}

/** One line (no `\n`) as the terminal left it after its `\r` redraws and backspaces. */
function redrawnLine(line: string): string {
  const redraws = line.replace(/\r+$/, '').split('\r').map(applyBackspaces)
  for (let i = redraws.length - 1; i > 0; i--) {
    const redraw = redraws[i]
    if (redraw) return redraw
  }
  return redraws[0] ?? ''
}

function applyBackspaces(text: string): string {
  if (!text.includes('\b')) return text
  const kept: string[] = []
  for (const char of text) {
    if (char === '\b') kept.pop()
    else kept.push(char)
  }
  return kept.join('')
}
