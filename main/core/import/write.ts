/**
 * A transcript (transcript.ts) becomes Bridle sessions: the path to the source's last entry is a
 * new root session, and every other branch a fork of the session that holds its branch point
 * (`forkSession`). Every event goes through `Session.append`, so the log's own rules hold for
 * what was imported: a user message opens a turn, each reply is a step with its
 * `request/start` and `assistant/message`, a call's result comes in its step after its
 * `tool/call`, and a call the source never answered gets a synthetic result saying so
 * (`IMPORT_NO_RESULT`). The caller runs this inside one store transaction: all or nothing.
 */
import { randomUUID } from 'node:crypto'
import type { Store } from '../store/types.js'
import { forkSession } from '../log/fork.js'
import { Session } from '../log/session.js'
import type {
  AssistantBlock,
  EventDataInput,
  EventType,
  JsonValue,
  SessionId,
} from '../../../protocol/events.js'
import type {
  AssistantItem,
  ImportSource,
  Item,
  ResultItem,
  Transcript,
  TranscriptNode,
  UserItem,
} from './transcript.js'
import { excerpt } from './transcript.js'

/** The result of a call the imported session has no result for. */
export const IMPORT_NO_RESULT = 'IMPORT_NO_RESULT'
/** A notice holding something of the source that has no Bridle equivalent. */
export const IMPORT_UNMAPPED = 'IMPORT_UNMAPPED'
/** The notice that counts the source entries left out as carrying nothing to import. */
export const IMPORT_SKIPPED = 'IMPORT_SKIPPED'
/** The error code of a result the source recorded as failed. */
export const TOOL_FAILED = 'TOOL_FAILED'
/** The longest title taken from a session's first words. */
const TITLE_WORDS = 80

export interface WriteTranscriptOptions {
  readonly projectDir: string
  /** The imported file's name (no folder): recorded on `session/imported`. */
  readonly file: string
  readonly clock?: () => number
}

export interface WrittenTranscript {
  readonly sessionId: SessionId
  /** One fork per other branch of the source, in the order the source's file has them. */
  readonly forks: readonly SessionId[]
}

/** Where a node's events end: a fork of `sessionId` at `seq` continues after that node. */
interface Position {
  readonly sessionId: SessionId
  seq: number
}

/**
 * Writes the transcript as a root session plus one fork per other branch. Must run inside
 * `store.write()`; throws what `Session.append` refuses (a bug in a reader, never the source's
 * fault: readers give only items these rules can place).
 */
export function writeTranscript(
  store: Store,
  transcript: Transcript,
  opts: WriteTranscriptOptions,
): WrittenTranscript {
  const clock = opts.clock ?? Date.now
  const byId = new Map(transcript.nodes.map((node) => [node.id, node]))
  const pathTo = (node: TranscriptNode): TranscriptNode[] => {
    const path: TranscriptNode[] = []
    const seen = new Set<string>()
    for (let at: TranscriptNode | undefined = node; at && !seen.has(at.id);) {
      seen.add(at.id)
      path.unshift(at)
      at = at.parentId === null ? undefined : byId.get(at.parentId)
    }
    return path
  }
  const positions = new Map<string, Position>()
  const leaf = transcript.nodes.at(-1)
  const main = leaf ? pathTo(leaf) : []

  const sessionId = randomUUID() as SessionId
  store.createSession({
    id: sessionId,
    parentId: null,
    forkSeq: null,
    projectDir: opts.projectDir,
    title: transcript.title ?? titleOf(main),
    createdAt: clock(),
  })
  const root = withSession(store, sessionId, transcript, clock, (writer) => {
    writer.preamble(transcript, opts)
    writer.nodes(main, positions)
    writer.finish()
    if (transcript.skipped.size > 0) writer.skippedNotice(transcript.skipped)
  })

  const forks: SessionId[] = []
  const children = new Set(
    transcript.nodes.flatMap((n) => (n.parentId === null ? [] : [n.parentId])),
  )
  for (const node of transcript.nodes) {
    if (children.has(node.id) || positions.has(node.id)) continue
    const path = pathTo(node)
    let shared = -1
    for (let i = path.length - 1; i >= 0; i--) {
      if (positions.has(path[i]?.id ?? '')) {
        shared = i
        break
      }
    }
    const from = shared < 0 ? root : positions.get(path[shared]?.id ?? '')
    if (!from) continue
    const branch = path.slice(shared + 1)
    const forkId = forkSession(store, from.sessionId, from.seq, {
      clock,
      title:
        (transcript.title === undefined ? titleOf(branch) : `${transcript.title} (branch)`) ??
        undefined,
    })
    withSession(store, forkId, transcript, clock, (writer) => {
      writer.nodes(branch, positions)
      writer.finish()
    })
    forks.push(forkId)
  }
  return { sessionId, forks }
}

/** Opens a session for writing, runs `body`, and closes it (committing into the transaction). */
function withSession(
  store: Store,
  id: SessionId,
  transcript: Transcript,
  clock: () => number,
  body: (writer: TranscriptWriter) => void,
): Position {
  // A failed commit is thrown by close(); reporting it as well would say it twice.
  const session = Session.open(store, id, { mode: 'write', clock, report: () => undefined })
  try {
    const writer = new TranscriptWriter(session, transcript.source)
    body(writer)
    const after = { sessionId: id, seq: writer.afterPreamble ?? session.length }
    session.close()
    return after
  } catch (error) {
    try {
      session.close()
    } catch {
      // Closing commits what was written so far into the transaction the caller rolls back;
      // the error worth reporting is the one that stopped the writing.
    }
    throw error
  }
}

function titleOf(nodes: readonly TranscriptNode[]): string | null {
  for (const node of nodes) {
    if (node.item?.kind === 'user' && node.item.role === 'input') {
      const words = node.item.text.replace(/\s+/g, ' ').trim()
      if (words) return words.length > TITLE_WORDS ? `${words.slice(0, TITLE_WORDS - 1)}…` : words
    }
  }
  return null
}

/** Appends the events of transcript nodes to one session, keeping the turn and step rules. */
class TranscriptWriter {
  /** The calls the open step's reply made that have no result yet. */
  private readonly calls = new Map<string, { name: string; args: string }>()
  private hasStepCalls = false
  private hasTurnReply = false
  private last: Position | undefined
  /** The latest time the source gave: synthetic closing events take it rather than now. */
  private lastAt: number | undefined
  /** The seq after `session/imported`: where a branch from the source's root is forked. */
  afterPreamble: number | undefined

  constructor(
    private readonly session: Session,
    private readonly source: ImportSource,
  ) {}

  preamble(transcript: Transcript, opts: WriteTranscriptOptions): void {
    const { source, sourceSessionId, sourceVersion, recordedProjectDir } = transcript
    this.append('session/created', { projectDir: opts.projectDir })
    this.append('session/imported', {
      source,
      file: opts.file,
      ...(sourceSessionId === undefined ? {} : { sourceSessionId }),
      ...(sourceVersion === undefined ? {} : { sourceVersion }),
      ...(recordedProjectDir === undefined ? {} : { recordedProjectDir }),
    })
    this.afterPreamble = this.session.length
  }

  nodes(nodes: readonly TranscriptNode[], positions: Map<string, Position>): void {
    for (const node of nodes) {
      if (node.item) this.item(node.item, node.at)
      this.last = { sessionId: this.session.id, seq: this.session.length }
      positions.set(node.id, this.last)
    }
  }

  finish(): void {
    this.closeTurn()
  }

  skippedNotice(skipped: ReadonlyMap<string, number>): void {
    const list = [...skipped].map(([kind, count]) => `${count} ${kind}`).join(', ')
    this.append('notice', {
      level: 'info',
      code: IMPORT_SKIPPED,
      message: `Left out as carrying nothing the conversation needs: ${list}.`,
    })
  }

  private item(item: Item, at?: number): void {
    switch (item.kind) {
      case 'user':
        return this.user(item, at)
      case 'assistant':
        return this.assistant(item, at)
      case 'result':
        return this.result(item, at)
      case 'note':
        return this.note(item.text, at)
    }
  }

  private user(item: UserItem, at?: number): void {
    this.closeStep(at)
    if (this.hasTurnReply) this.closeTurn(at)
    if (!this.session.isTurnOpen) this.openTurn(at)
    this.append('user/message', { content: item.text, kind: item.role }, at)
  }

  private assistant(item: AssistantItem, at?: number): void {
    if (item.blocks.length === 0) {
      const notes = item.notes?.join('; ')
      return this.note(
        notes ? `A reply Bridle cannot carry: ${notes}` : 'A reply with no content.',
        at,
      )
    }
    this.closeStep(at)
    if (!this.session.isTurnOpen) this.openTurn(at)
    this.append('step/start', {}, at)
    const headerSeq =
      this.session.latestHeader()?.seq ??
      this.append('request/header', { sections: [], tools: [], reason: 'initial' }, at).seq
    this.append(
      'request/start',
      {
        provider: `import:${this.source}`,
        model: item.model ?? 'unknown',
        params: {},
        headerSeq,
      },
      at,
    )
    const blocks = uniqueCallIds(item.blocks)
    const usage = item.usage && {
      ...(item.usage.inputTokens === undefined ? {} : { inputTokens: item.usage.inputTokens }),
      ...(item.usage.outputTokens === undefined ? {} : { outputTokens: item.usage.outputTokens }),
    }
    this.hasStepCalls = blocks.some((block) => block.type === 'tool-call')
    this.append(
      'assistant/message',
      { blocks, finish: this.hasStepCalls ? 'tool-calls' : 'stop', ...(usage ? { usage } : {}) },
      at,
    )
    for (const block of blocks) {
      if (block.type === 'tool-call')
        this.calls.set(block.callId, { name: block.name, args: block.args })
    }
    for (const note of item.notes ?? []) this.note(note, at)
    this.hasTurnReply = true
  }

  private result(item: ResultItem, at?: number): void {
    const call = this.session.step > 0 ? this.calls.get(item.callId) : undefined
    if (!call) {
      return this.note(
        `A result for call ${item.callId}, which the reply before it did not make: ${excerpt(item.output)}`,
        at,
      )
    }
    this.append('tool/call', { callId: item.callId, name: call.name, args: argsOf(call.args) }, at)
    this.append(
      'tool/result',
      item.isError
        ? {
            callId: item.callId,
            ok: false,
            error: { code: TOOL_FAILED, message: item.output || '(no output)' },
          }
        : { callId: item.callId, ok: true, output: item.output },
      at,
    )
    this.calls.delete(item.callId)
  }

  private note(text: string, at?: number): void {
    this.append('notice', { level: 'info', code: IMPORT_UNMAPPED, message: text }, at)
  }

  private openTurn(at?: number): void {
    this.append('turn/start', {}, at)
    this.hasTurnReply = false
  }

  private closeStep(at?: number): void {
    if (!(this.session.step > 0)) return
    for (const [callId, call] of this.calls) {
      this.append('tool/call', { callId, name: call.name, args: argsOf(call.args) }, at)
      this.append(
        'tool/result',
        {
          callId,
          ok: false,
          error: {
            code: IMPORT_NO_RESULT,
            message:
              'The imported session has no result for this call: it may or may not have run.',
          },
        },
        at,
      )
    }
    this.calls.clear()
    this.append('step/end', { reason: this.hasStepCalls ? 'tool-calls' : 'completed' }, at)
  }

  private closeTurn(at?: number): void {
    this.closeStep(at)
    if (this.session.isTurnOpen) this.append('turn/end', { reason: 'completed' }, at)
    this.hasTurnReply = false
    // A continuation of the node before starts after these closing events, not inside the turn.
    if (this.last) this.last.seq = this.session.length
  }

  private append<T extends EventType>(type: T, data: EventDataInput<T>, at?: number) {
    if (at !== undefined) this.lastAt = Math.max(at, this.lastAt ?? 0)
    const when = at ?? this.lastAt
    return this.session.append(type, data, when === undefined ? {} : { at: when })
  }
}

/** A call's arguments as the log keeps them: parsed JSON, or the text when it is not JSON. */
function argsOf(args: string): JsonValue {
  try {
    return JSON.parse(args) as JsonValue
  } catch {
    // A model may send arguments that are not JSON; the log keeps them as they were.
    return args
  }
}

/** The same blocks, a repeated call id made unique (the log refuses a repeat in one message). */
function uniqueCallIds(blocks: readonly AssistantBlock[]): AssistantBlock[] {
  const seen = new Set<string>()
  return blocks.map((block) => {
    if (block.type !== 'tool-call') return block
    let id = block.callId
    for (let n = 2; seen.has(id); n++) id = `${block.callId}#${n}`
    seen.add(id)
    return id === block.callId ? block : { ...block, callId: id }
  })
}
