/**
 * Text from someone else (a project's file, a server, a model) made safe to show as it is: every
 * character that a terminal or a page would act on instead of show — C0 controls (ESC, CR, LF,
 * TAB, BEL, …), DEL, C1 controls (0x80–0x9F, e.g. CSI), the bidirectional overrides and
 * isolates that reorder what is seen, zero-width characters, line and paragraph separators and
 * lone surrogates — becomes a visible escape (`\x1b`, `\r`, `\n`, `\t`, `\u202e`), and a
 * backslash becomes `\\`, so the escape of a real control character cannot be confused with the
 * same text typed in the file. Everything else (letters of every script, emoji) is left alone.
 *
 * Contract: the result contains no character in that set; it is a pure function of its input,
 * shared by the CLI and the renderer so both show the same thing.
 */

const NAMED: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
}

// C0, DEL, C1; zero-width and joiners; LRM/RLM/ALM; line/paragraph separators; bidi embeddings,
// overrides and isolates; BOM; lone surrogates (the `u` flag keeps pairs together).
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is this module's job
  /[\\\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/gu

/** `text` with every hidden or acting character shown as an escape (see the module comment). */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, (char) => NAMED[char] ?? escapeCode(char.charCodeAt(0)))
}

/** Whether `text` has a character `visibleText` escapes, a backslash aside (it is visible). */
export function hasHiddenText(text: string): boolean {
  return visibleText(text) !== text.replaceAll('\\', '\\\\')
}

function escapeCode(code: number): string {
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * Text for a terminal that keeps its lines (an answer, a transcript, a log line, JSON): the same
 * hidden characters as `visibleText`, except newline and tab, which stay, become `\uXXXX` escapes;
 * backslashes stay as they are. That notation is also JSON's, so JSON text (from
 * `JSON.stringify`, which leaves DEL, C1 and the bidi controls raw) stays valid JSON of the same
 * value. The CLI passes everything it prints through this (`main/cli/terminal.ts`).
 */
export function visibleLines(text: string): string {
  return text.replace(HIDDEN, (char) =>
    char === '\n' || char === '\t' || char === '\\'
      ? char
      : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
