/**
 * A session's history as a transcript for people: the log's events folded into what a reader
 * follows (who said what, which tools ran and what they returned, which files changed), with
 * every text redacted and long ones cut. Both renderers (`html.ts`, `markdown.ts`) draw this same
 * model, so the two formats carry the same facts. Pure: the events, the redactor and the way to
 * get a file's patch are handed in.
 */
import { basename } from 'node:path'
import type { FileChange } from '../../../protocol/contract.js'
import type { EventData, JsonValue, LogEvent } from '../../../protocol/events.js'
import type { ExportHeader } from '../log/export.js'
import type { Redactor } from './redact.js'

/** Lines of a tool's output shown before the rest is cut. */
export const DEFAULT_MAX_OUTPUT_LINES = 80
/** Characters of a tool's output (or arguments) shown before the rest is cut. */
export const DEFAULT_MAX_OUTPUT_CHARS = 8_000
/** Lines of one file's diff shown before the rest is cut. */
export const DEFAULT_MAX_DIFF_LINES = 400

/** A text as shown, and what was left out of it (absent when nothing was). */
export interface Shown {
  readonly text: string
  readonly cut?: string
}

export interface TranscriptHeader {
  readonly sessionId: string
  readonly title: string
  /** The project folder's name, never its path. */
  readonly project: string
  /** The models that answered, in the order they were first used. */
  readonly models: readonly string[]
  readonly createdAt: number
  readonly updatedAt: number
  readonly exportedAt: number
  readonly turns: number
  /** The sessions this one's history came from, oldest first (forks flattened). */
  readonly forkedFrom: readonly { readonly sessionId: string; readonly atSeq: number }[]
  /** For a subagent: the session and call that started it. */
  readonly spawnedBy?: { readonly sessionId: string; readonly description: string }
}

export interface ToolItem {
  readonly callId: string
  readonly name: string
  /** What the call acts on, in one line (a command, a path), or the arguments in short. */
  readonly summary: string
  /** The arguments, pretty-printed JSON (or the text the model sent when it was not JSON). */
  readonly args: Shown
  /** `running`: the log holds no result (the session was exported while it ran). */
  readonly status: 'ok' | 'failed' | 'running'
  readonly output?: Shown
  readonly error?: { readonly code: string; readonly message: string }
  readonly exitCode?: number
  /** Why it did not run, when a person or a rule refused it. */
  readonly refusal?: string
  /** A `task` call's child session. */
  readonly subagent?: { readonly sessionId: string; readonly description: string }
  readonly mcpServer?: string
  /** Calls a `run_code` program made from this call. */
  readonly children: ToolItem[]
}

export interface FileItem {
  readonly path: string
  readonly status: FileChange['status']
  readonly additions: number
  readonly deletions: number
  /** A unified diff; absent when its content is not known or it is binary (`note` says which). */
  readonly patch?: Shown
  readonly note?: string
}

export type TranscriptItem =
  | { readonly kind: 'turn'; readonly turn: number; readonly at: number }
  | {
      readonly kind: 'user'
      readonly text: string
      readonly attachments: readonly string[]
      readonly at: number
    }
  /** What the harness added before a turn (date, git status): context, not the user's words. */
  | { readonly kind: 'context'; readonly text: Shown }
  | { readonly kind: 'assistant'; readonly text: string }
  | { readonly kind: 'reasoning'; readonly text: string }
  | { readonly kind: 'tool'; readonly call: ToolItem }
  | { readonly kind: 'changes'; readonly turn: number; readonly files: readonly FileItem[] }
  | {
      readonly kind: 'checkpoint'
      readonly summary: string
      readonly tokensBefore: number
      readonly tokensAfter: number
    }
  /** A brief line: an error, a notice, a turn that did not complete, a model switch. */
  | { readonly kind: 'note'; readonly level: 'info' | 'warning' | 'error'; readonly text: string }

export interface Transcript {
  readonly header: TranscriptHeader
  readonly items: readonly TranscriptItem[]
}

type DiffFile = EventData<'workspace/diff'>['files'][number]

export interface TranscriptOptions {
  readonly redact: Redactor
  /** A changed file with its patch (from the snapshot store); without it, counts only. */
  readonly patchOf?: (file: DiffFile) => FileChange
  /** Epoch milliseconds, for the header's export date. */
  readonly now: number
  readonly maxOutputLines?: number
  readonly maxOutputChars?: number
  readonly maxDiffLines?: number
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** Folds a session's history (as `readSessionHistory` reads it) into a transcript. */
export function buildTranscript(
  exportHeader: ExportHeader,
  events: Iterable<LogEvent>,
  opts: TranscriptOptions,
): Transcript {
  const { redact } = opts
  const maxLines = opts.maxOutputLines ?? DEFAULT_MAX_OUTPUT_LINES
  const maxChars = opts.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS
  const shown = (text: string): Shown => cut(redact(text), maxLines, maxChars)
  const items: TranscriptItem[] = []
  // By id, the latest call of each: ids repeat across steps (many servers number calls per reply).
  const calls = new Map<string, Mutable<ToolItem>>()
  // Calls the model proposed whose `tool/call` has not come yet (it may never: a refused call).
  const proposed = new Set<ToolItem>()
  const models: string[] = []
  const note = (level: 'info' | 'warning' | 'error', text: string) =>
    items.push({ kind: 'note', level, text: redact(text) })
  let turns = 0
  // A fork starts untitled: its history's first words name it then, as they would in the app.
  let firstWords: string | undefined
  // The model chosen when the session was made; the requests name the ones that answered.
  let createdModel: string | undefined
  let spawnedBy: TranscriptHeader['spawnedBy']

  const describeCall = (name: string, args: unknown, argsText: string) => ({
    name,
    summary: summarize(name, args, argsText, redact),
    args: shown(args === undefined ? argsText : JSON.stringify(args, null, 2)),
  })
  const addCall = (callId: string, name: string, args: unknown, argsText: string) => {
    const call: Mutable<ToolItem> = {
      callId,
      ...describeCall(name, args, argsText),
      status: 'running',
      children: [],
    }
    calls.set(callId, call)
    return call
  }

  for (const event of events) {
    switch (event.type) {
      case 'session/created':
        createdModel ??= event.data.model
        break
      case 'session/spawned':
        spawnedBy = {
          sessionId: String(event.data.by.sessionId),
          description: redact(event.data.description),
        }
        break
      case 'session/model':
        note('info', `Model switched to ${event.data.model}.`)
        break
      case 'request/start':
        if (!models.includes(event.data.model)) models.push(event.data.model)
        break
      case 'turn/start':
        turns = Math.max(turns, event.turn)
        items.push({ kind: 'turn', turn: event.turn, at: event.at })
        break
      case 'turn/end':
        if (event.data.reason !== 'completed') {
          note(
            event.data.reason === 'error' ? 'error' : 'warning',
            `Turn ${event.turn} ended: ${event.data.reason.replace(/-/g, ' ')}.`,
          )
        }
        break
      case 'user/message': {
        const { content, kind } = event.data
        if (kind === 'context') items.push({ kind: 'context', text: shown(content) })
        else if (kind === 'notice') note('info', content)
        else {
          firstWords ??= oneLine(redact(content), 80) || undefined
          items.push({
            kind: 'user',
            text: redact(content),
            attachments: (event.data.attachments ?? []).map((a) =>
              redact(a.kind === 'file' ? a.path : a.kind === 'image' ? `image (${a.mime})` : a.uri),
            ),
            at: event.at,
          })
        }
        break
      }
      case 'assistant/message':
        for (const block of event.data.blocks) {
          if (block.type === 'tool-call') {
            const call = addCall(block.callId, block.name, parseJson(block.args), block.args)
            proposed.add(call)
            items.push({ kind: 'tool', call })
          } else if (block.text.trim() !== '') {
            items.push({
              kind: block.type === 'text' ? 'assistant' : 'reasoning',
              text: redact(block.text),
            })
          }
        }
        if (event.data.interrupted === true) note('warning', 'The reply was cut off.')
        break
      case 'tool/call': {
        const { callId, name, args, mcp, parent } = event.data
        const known = calls.get(callId)
        let call: Mutable<ToolItem>
        if (known !== undefined && proposed.has(known)) {
          // The model's block came first; the pipeline's parsed arguments replace its text.
          proposed.delete(known)
          call = Object.assign(known, describeCall(name, args, ''))
        } else {
          // A call no reply proposed: one a program made (code mode), inside its parent's card.
          call = addCall(callId, name, args, '')
          const parentCall = parent === undefined ? undefined : calls.get(parent.callId)
          if (parentCall !== undefined) parentCall.children.push(call)
          else items.push({ kind: 'tool', call })
        }
        if (mcp !== undefined) call.mcpServer = redact(mcp.server)
        break
      }
      case 'tool/result': {
        const call = calls.get(event.data.callId)
        if (call === undefined) break
        proposed.delete(call)
        const exitCode = event.data.metadata?.['exitCode']
        if (typeof exitCode === 'number') call.exitCode = exitCode
        // A `task` result names its child too, for a log that lacks `subagent/started`.
        const child = event.data.metadata?.['subagent']
        if (typeof child === 'string' && call.subagent === undefined) {
          call.subagent = { sessionId: child, description: call.summary }
        }
        if (event.data.ok) {
          call.status = 'ok'
          call.output = shown(event.data.output)
        } else {
          call.status = 'failed'
          call.error = { code: event.data.error.code, message: redact(event.data.error.message) }
        }
        break
      }
      case 'approval/decided': {
        const call = calls.get(event.data.callId)
        if (call === undefined || event.data.decision === 'allow') break
        const who = event.data.by === undefined || event.data.by === 'user' ? 'the user' : 'Bridle'
        const why = event.data.reason === undefined ? '' : `: ${event.data.reason}`
        call.refusal = redact(
          `${event.data.decision === 'deny' ? 'Refused' : 'Cancelled'} by ${who}${why}`,
        )
        break
      }
      case 'subagent/started': {
        const call = calls.get(event.data.callId)
        if (call !== undefined) {
          call.subagent = {
            sessionId: String(event.data.sessionId),
            description: redact(event.data.description),
          }
        }
        break
      }
      case 'workspace/diff':
        if (event.data.files.length > 0) {
          items.push({
            kind: 'changes',
            turn: event.turn,
            files: event.data.files.map((file) => fileItem(file, opts, redact)),
          })
        }
        break
      case 'compaction/checkpoint':
        items.push({
          kind: 'checkpoint',
          summary: redact(event.data.summary),
          tokensBefore: event.data.tokensBefore,
          tokensAfter: event.data.tokensAfter,
        })
        break
      case 'compaction/undone':
        note('info', `The compaction at event ${event.data.checkpointSeq} was undone.`)
        break
      case 'compaction/pruned':
        note(
          'info',
          `${plural(event.data.seqs.length, 'large tool output')} taken out of the model's view.`,
        )
        break
      case 'deliverable/present':
        note('info', `Presented: ${event.data.paths.join(', ')}${noteOf(event.data.note)}`)
        break
      case 'recovery/repaired':
        note(
          'warning',
          `Bridle closed ${plural(event.data.items.length, 'thing')} a ${event.data.cause} left open.`,
        )
        break
      case 'error':
        note('error', `Error (${event.data.scope}) ${event.data.code}: ${event.data.message}`)
        break
      case 'notice':
        note(event.data.level, event.data.message)
        break
      default:
        // The rest (inbox, steps, chunks, request headers, approvals asked, processes) is the
        // harness's bookkeeping: a reader follows the messages, calls and changes above.
        break
    }
  }

  const session = exportHeader.session
  const segments = exportHeader.ancestry
  return {
    header: {
      sessionId: session.id,
      title: redact(session.title ?? firstWords ?? 'Untitled session'),
      project: redact(basename(session.projectDir) || session.projectDir),
      models: models.length > 0 || createdModel === undefined ? models : [createdModel],
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      exportedAt: opts.now,
      turns,
      forkedFrom: segments.slice(0, -1).map((segment) => ({
        sessionId: segment.sessionId,
        atSeq: segment.toSeq,
      })),
      ...(spawnedBy === undefined ? {} : { spawnedBy }),
    },
    items,
  }
}

function fileItem(file: DiffFile, opts: TranscriptOptions, redact: Redactor): FileItem {
  const base = {
    path: redact(file.path),
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
  }
  const change = opts.patchOf?.(file)
  if (change?.isBinary === true) return { ...base, note: 'binary file' }
  if (change?.patch === undefined) {
    return { ...base, note: 'its content before or after is not known, so no diff is shown' }
  }
  const maxLines = opts.maxDiffLines ?? DEFAULT_MAX_DIFF_LINES
  return { ...base, patch: cut(redact(change.patch), maxLines, Number.POSITIVE_INFINITY) }
}

/**
 * The first `maxLines` lines and `maxChars` characters of `text`, and a note saying how much was
 * left out. Cut after redaction, so a cut never leaves part of a secret that redaction would
 * have recognised whole.
 */
export function cut(text: string, maxLines: number, maxChars: number): Shown {
  const lines = text.split('\n')
  if (lines.length <= maxLines && text.length <= maxChars) return { text }
  let kept = lines.slice(0, maxLines).join('\n')
  if (kept.length > maxChars) kept = kept.slice(0, maxChars)
  const restLines = text.slice(kept.length).replace(/\n$/, '').split('\n').length - 1
  const rest =
    restLines > 0
      ? plural(restLines, 'more line')
      : plural(text.length - kept.length, 'more character')
  return { text: kept, cut: `${rest} not shown (the whole text is in the session's log)` }
}

/** The argument that names what a built-in tool acts on. */
const LEAD_ARG: Readonly<Record<string, string>> = {
  bash: 'command',
  read: 'path',
  write: 'path',
  edit: 'path',
  list: 'path',
  glob: 'pattern',
  grep: 'pattern',
  task: 'description',
  run_code: 'code',
}

/**
 * One line naming what a call acts on: its lead argument, else its arguments in short. Each text
 * is redacted before it is clipped: a clip inside a key would leave a prefix no pattern knows.
 */
function summarize(name: string, args: unknown, argsText: string, redact: Redactor): string {
  const fields = isRecord(args) ? args : undefined
  const leadName = LEAD_ARG[name]
  const lead = leadName === undefined ? undefined : fields?.[leadName]
  if (typeof lead === 'string') return oneLine(redact(lead), 100)
  if (fields === undefined) return oneLine(redact(argsText), 100)
  const pairs = Object.entries(fields).map(([key, value]) => {
    const text = redact(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    return oneLine(text, 40 + key.length)
  })
  return oneLine(pairs.join(' '), 100)
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    // Weak models send broken JSON; the arguments are then shown as the text they sent.
    return undefined
  }
}

const noteOf = (text: string | undefined) => (text === undefined ? '.' : ` (${text}).`)

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`
}
