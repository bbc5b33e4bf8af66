/**
 * Words and numbers for the chat: durations, token counts, a tool call's arguments in one line,
 * status labels and what to do about an error code. Pure, so it is unit-tested with the items.
 */
import type { ToolStatus } from './items'
import { record } from './read-json'

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.round((ms % 60_000) / 1000)
  return `${minutes} min ${seconds} s`
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens)
  if (tokens < 100_000) return `${(tokens / 1000).toFixed(1)}k`
  return `${Math.round(tokens / 1000)}k`
}

/** The core's messages start in lower case and end without a stop, to fit any sentence: as one. */
export function sentence(message: string): string {
  const text = message.trim()
  if (text === '') return text
  const capital = text.charAt(0).toUpperCase() + text.slice(1)
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`
}

const clip = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * A call's arguments in one line: the one field that says what the call does (the command, the
 * path, the pattern) when the tool has one, else `key=value` pairs. Long values are cut.
 */
export function compactArgs(name: string, args: unknown, argsText: string, max = 120): string {
  const data = record(args)
  const lead = LEAD_FIELD[name]
  const main = lead === undefined ? undefined : data[lead]
  if (typeof main === 'string') {
    const rest = Object.keys(data).filter((key) => key !== lead && !BULKY_FIELDS.has(key))
    const extra = rest.map((key) => `${key}=${valueText(data[key])}`).join(' ')
    return clip(extra === '' ? main : `${main} · ${extra}`, max)
  }
  if (name === 'present') {
    const paths = data['paths']
    if (Array.isArray(paths)) return clip(paths.map(valueText).join(', '), max)
  }
  if (args === undefined) return clip(argsText, max)
  const pairs = Object.entries(data)
    .filter(([key]) => !BULKY_FIELDS.has(key))
    .map(([key, value]) => `${key}=${valueText(value)}`)
  return clip(pairs.join(' '), max)
}

/** The argument that names what a built-in tool acts on. */
const LEAD_FIELD: Readonly<Record<string, string>> = {
  bash: 'command',
  read: 'path',
  write: 'path',
  edit: 'path',
  list: 'path',
  glob: 'pattern',
  grep: 'pattern',
}

/** File contents and edit texts: shown in the diff, not in the one-line summary. */
const BULKY_FIELDS = new Set(['content', 'oldText', 'newText'])

function valueText(value: unknown): string {
  if (typeof value === 'string') return clip(value, 40)
  return clip(JSON.stringify(value), 40)
}

export const STATUS_LABEL: Readonly<Record<ToolStatus, string>> = {
  queued: 'queued',
  'awaiting-approval': 'waiting for approval',
  running: 'running',
  done: 'done',
  failed: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
  unknown: 'outcome unknown',
  'not-started': 'did not run',
}

/** What a turn's end reason means, for the footer of a turn that did not simply complete. */
export function turnEndText(reason: string): { readonly text: string; readonly tone: Tone } {
  switch (reason) {
    case 'completed':
      return { text: 'Completed', tone: 'plain' }
    case 'cancelled':
      return { text: 'Stopped by you: the turn was interrupted.', tone: 'interrupted' }
    case 'error':
      return { text: 'The turn ended with an error.', tone: 'error' }
    case 'max-steps':
      return {
        text: 'The turn reached its step limit. Send a message to let the agent continue.',
        tone: 'interrupted',
      }
    case 'max-time':
      return {
        text: 'The turn reached its time limit. Send a message to let the agent continue.',
        tone: 'interrupted',
      }
    case 'rejected':
      return { text: 'The input was refused before the model ran.', tone: 'error' }
    case 'interrupted-by-crash':
      return {
        text: 'Bridle stopped while this turn ran (a crash or a forced quit). What was logged is kept; check the project for half-done changes.',
        tone: 'recovered',
      }
    case 'interrupted-by-fork':
      // The fork's `recovery/repaired` row right after says the same with details: no banner.
      return { text: 'ended at the fork point', tone: 'plain' }
    case 'interrupted':
      return {
        text: 'Stopped because Bridle was closing. What was logged is kept; send a message to continue.',
        tone: 'interrupted',
      }
    default:
      return { text: `ended: ${reason}`, tone: 'plain' }
  }
}

export type Tone = 'plain' | 'error' | 'interrupted' | 'recovered'

/**
 * What to do about an error, by code. The core's messages already say what failed (often with a
 * hint); this adds the step the user takes in the app.
 */
export function errorHint(code: string, message: string): string | undefined {
  switch (code) {
    case 'ENDPOINT_UNREACHABLE':
    case 'CONNECTION_REFUSED':
      return /running\?/.test(message)
        ? 'Start the model server (for Ollama: `ollama serve`), then send the message again, or pick another endpoint in Settings.'
        : 'Is the model server running (e.g. Ollama)? Start it, or check the endpoint address in Settings, then send the message again.'
    case 'AUTH_FAILED':
      return "Check the endpoint's API key in Settings."
    case 'NOT_FOUND':
    case 'MODEL_UNAVAILABLE':
      return 'Pick a model the server lists (Settings shows them), or pull it on the server.'
    case 'RATE_LIMITED':
      return 'Wait a moment, then send the message again.'
    case 'REQUEST_REJECTED':
      return 'If the prompt is too long for the model, compact the history (Checkpoints) or start a new session.'
    case 'SERVER_ERROR':
      return 'The model server failed: check its log, then send the message again.'
    case 'STALLED':
    case 'DISCONNECTED':
      return 'The server stopped answering mid-stream. Check it is not overloaded, then send again.'
    case 'MALFORMED_CHUNK':
      return 'The server does not speak the OpenAI streaming format: check the base URL (it usually ends in /v1).'
    case 'SESSION_LOCKED':
    case 'CONFLICT':
      return 'Another Bridle process has this session open; close it there or wait for its turn to end.'
    default:
      return undefined
  }
}

/**
 * What a tool's failure means for the user, by code, when the core's message (written for the
 * model) does not say it plainly: shown above the code and message on the card.
 */
export function toolErrorText(code: string): string | undefined {
  switch (code) {
    case 'STALE_FILE':
      return 'The file changed on disk since the agent last read it (an edit of yours, or a command), so nothing was written.'
    case 'READ_BEFORE_WRITE':
      return 'The agent tried to overwrite a file it had not read in this session, so nothing was written.'
    case 'SANDBOX_UNAVAILABLE':
      return 'The command did not run: the Sandbox setting requires a sandbox, and none works here. Install bubblewrap (bwrap), or set Sandbox to Auto in Settings.'
    case 'GUARD_DENIED':
      return 'Bridle refuses this call in every approval mode.'
    case 'POLICY_DENIED':
      return 'A rule or the approval mode refused this call without asking.'
    case 'NO_APPROVAL_CHANNEL':
      return 'This call needed an approval, and nobody could be asked.'
    case 'REPEATED_CALL':
      return 'Not run: the model made the same call too many times in a row, so Bridle stopped the turn (a likely loop).'
    default:
      return undefined
  }
}

/** What the user can do about a notice, by code; undefined when its message says enough. */
export function noticeHint(code: string): string | undefined {
  switch (code) {
    case 'SANDBOX_OFF':
      return 'Settings › Sandbox turns it back on.'
    case 'SANDBOX_UNAVAILABLE':
      return 'Install bubblewrap (bwrap) to run commands in a sandbox.'
    case 'SANDBOX_REQUIRED_UNAVAILABLE':
      return 'Install bubblewrap (bwrap), or set Sandbox to Auto in Settings to run commands without one.'
    default:
      return undefined
  }
}
