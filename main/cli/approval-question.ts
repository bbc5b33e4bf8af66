import { visibleLines } from '../../protocol/visible-text.js'
import type { ApprovalRequest } from '../core/tools/approvals.js'

/**
 * The longest an argument's value is shown in a question, in characters of its JSON form; a
 * longer one (a file's whole content) is cut there and its full length said.
 */
export const SHOWN_VALUE_CHARS = 200

/**
 * The question the terminal shows for a call that needs a person's yes: the tool, the tool's own
 * description of the call (for bash, the command exactly as it will run), then each argument on
 * its own line as its JSON value, so the operation shown is the operation that runs and no text
 * in it can pose as another: a CR, an ESC sequence, a bidi override or a newline in a path shows
 * as an escape (`\r`, `\u001b`, `\u202e`, `\n`) instead of acting on the terminal, a backslash
 * typed in the value shows doubled, and a warning line says the call holds such characters.
 * The choices follow. Pure: the same request gives the same text.
 */
export function approvalQuestion(
  request: ApprovalRequest,
  general: string | undefined,
  exact: string | undefined,
): string {
  const choices = [
    '[y] allow once',
    ...(general === undefined ? [] : [`[a] always allow ${shownGrant(general)}`]),
    ...(exact === undefined ? [] : [`[e] always allow exactly ${shownGrant(exact)}`]),
    '[n] deny (add a reason after n)',
  ]
  const description = request.description
    .split('\n')
    .map((line) => `    ${visibleLines(line)}\n`)
    .join('')
  const warnings = [
    ...(holdsHidden(request) ? [HIDDEN_WARNING] : []),
    ...(request.warnings ?? []).map(oneLine),
  ]
  return (
    `\n? ${oneLine(request.tool)} needs your approval:\n${description}` +
    argumentLines(request.args) +
    warnings.map((warning) => `  ! ${warning}\n`).join('') +
    `  ${choices.join('  ')}\n> `
  )
}

const HIDDEN_WARNING =
  'the call holds control or invisible characters (shown as \\r, \\u001b, \\u202e, ...): the text may try to look like something else'

/** Each argument as `    name: <JSON value>`, long values cut with their length said. */
function argumentLines(args: unknown): string {
  const entries =
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? Object.entries(args)
      : [['arguments', args] as const]
  return entries.map(([name, value]) => `      ${oneLine(name)}: ${shownValue(value)}\n`).join('')
}

function shownValue(value: unknown): string {
  // JSON.stringify gives undefined for undefined (an optional argument left out).
  const json = (JSON.stringify(value) as string | undefined) ?? String(value)
  if (json.length <= SHOWN_VALUE_CHARS) return visibleLines(json)
  const length =
    typeof value === 'string' ? `${value.length} characters` : `${json.length} characters of JSON`
  return `${visibleLines(json.slice(0, SHOWN_VALUE_CHARS))}... (${length} in all, cut here)`
}

/** A grant of several patterns (one per program of the line), each quoted and escaped. */
const shownGrant = (grant: string) =>
  grant
    .split('\n')
    .map((pattern) => visibleLines(JSON.stringify(pattern)))
    .join(' and ')

/** Text that must stay on its line (a name, a warning): newlines and tabs escaped too. */
const oneLine = (text: string) => visibleLines(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t')

/** Whether the description or any string in the arguments holds a control or invisible character. */
function holdsHidden(request: ApprovalRequest): boolean {
  const hides = (text: string) => visibleLines(text) !== text
  return hides(request.description) || stringsOf(request.args).some(hides)
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)])
}
