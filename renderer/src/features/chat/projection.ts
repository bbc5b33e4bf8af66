/**
 * The projection of a session log into chat items (the types and the small helpers are in
 * items.ts). One pass in log order; a tool call's later events (approval, `tool/call`,
 * `tool/result`, the turn's end) update its item in place, where the model asked for it. A call
 * made by another call (code mode: an event with `parent`) is kept in its parent's `inner`
 * list and changes the parent's item, so it never becomes a card of its own.
 */
import type { EventDto, EventDtoOf } from '../../../../protocol/contract'
import { assistantParts, callKey, placeOf } from '../../state/event-selectors'
import type { CallEvent, CallPlace } from '../../state/event-selectors'
import { stabilizeItems, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './items'
import type { ChatItem, ToolCallView, ToolStatus, Usage } from './items'
import { num } from './read-json'

const INTERRUPTED_CODES = new Set(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'CANCELLED'])
const DENIED_CODES = new Set(['APPROVAL_DENIED', 'POLICY_DENIED', 'GUARD_DENIED'])

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ToolItem = Extract<ChatItem, { kind: 'tool' }>
type MutableCall = Mutable<ToolCallView>

/** A call being built: where its card is, and (for an inner call) the call that made it. */
interface CallEntry {
  /** The card's index in `items` (an inner call's is its parent's). */
  readonly index: number
  readonly call: MutableCall
  rev: number
  /** Keys of the calls this one made, in order. */
  inner?: string[]
  /** The key of the call that made this one: its changes re-snapshot that card. */
  readonly parentKey?: string
}

/** Builds the items of a log (events in seq order, without chunks). */
export function buildItems(events: readonly EventDto[]): ChatItem[] {
  return [...new ChatProjection().update(events)]
}

/** Parses the model's argument text; undefined when it is not JSON (weak models send such). */
export function parseArgs(text: string): unknown {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    // Not JSON: the card shows the text as sent, and the pipeline reports INVALID_ARGUMENTS.
    return undefined
  }
}

/**
 * The projection, kept between updates: a log only grows, so `update` with the same events plus
 * new ones at the end adds just those (a 30k-event session costs a few events' work per
 * notification, not a replay); anything else (a gap filled in the middle) starts over. Items
 * that did not change keep their identity from one update to the next.
 */
export class ChatProjection {
  private builder = new ItemBuilder()
  private seen: readonly EventDto[] = []
  private output: readonly ChatItem[] = []

  update(events: readonly EventDto[]): readonly ChatItem[] {
    if (events === this.seen) return this.output
    const count = this.seen.length
    const isExtension =
      events.length >= count &&
      (count === 0 || (events[0] === this.seen[0] && events[count - 1] === this.seen[count - 1]))
    if (isExtension && events.length === count) {
      this.seen = events
      return this.output
    }
    if (!isExtension) this.builder = new ItemBuilder()
    for (let i = isExtension ? count : 0; i < events.length; i++) {
      const event = events[i]
      if (event) this.builder.add(event)
    }
    this.seen = events
    const next = this.builder.finish()
    this.output = isExtension ? next : stabilizeItems(this.output, next)
    return this.output
  }
}

/** One pass over the log, keeping what later events update (calls, turns, checkpoints). */
class ItemBuilder {
  private readonly items: ChatItem[] = []
  /** Calls (by `callKey`) changed since the last `finish`: their items are re-snapshotted then. */
  private readonly dirty = new Set<string>()
  private readonly calls = new Map<string, CallEntry>()
  /** Calls without a result yet: what a turn's end closes (kept small, unlike `calls`). */
  private readonly openCalls = new Set<string>()
  private readonly checkpoints = new Map<number, number>()
  private readonly turnStartAt = new Map<number, number>()
  private readonly usage = new Map<number, Mutable<Usage>>()
  private readonly errorTurns = new Set<number>()
  /** Seq and time of the latest turn's events: what a fork's or crash's closing is timed against. */
  private turnTimes: { seq: number; at: number }[] = []
  private lastTurnEnd: number | undefined
  /** Where each restore's item is (by its seq), for its undo; and the last one's, while undoable. */
  private readonly restores = new Map<number, number>()
  private lastRestore: number | undefined

  add(event: EventDto): void {
    if (event.type === 'turn/start') this.turnTimes = []
    this.turnTimes.push({ seq: event.seq, at: event.at })
    if (event.type === 'recovery/repaired') this.timeRepairedTurn(event.data.items)
    const item = standaloneItem(event)
    if (item !== undefined) {
      if (item.kind === 'checkpoint') this.checkpoints.set(event.seq, this.items.length)
      if (item.kind === 'error' && !item.isRetry) this.errorTurns.add(event.turn)
      this.items.push(item)
      return
    }
    switch (event.type) {
      case 'assistant/message':
        this.addAssistant(event)
        return
      case 'approval/requested':
      case 'approval/decided':
      case 'process/started':
      case 'tool/call':
      case 'tool/result':
        this.addCallEvent(event)
        return
      case 'subagent/started':
        this.addSubagent(event)
        return
      case 'turn/start':
        this.turnStartAt.set(event.turn, event.at)
        this.closeUndo(event.seq)
        return
      case 'workspace/restored':
        this.addRestored(event)
        return
      case 'workspace/restore-undone':
        this.addRestoreUndone(event)
        return
      case 'turn/end':
        this.endTurn(event)
        return
      case 'compaction/undone': {
        const index = this.checkpoints.get(event.data.checkpointSeq)
        const item = index === undefined ? undefined : this.items[index]
        if (index !== undefined && item?.kind === 'checkpoint') {
          this.items[index] = { ...item, isUndone: true, rev: event.seq }
        }
        return
      }
      default:
        // Bookkeeping (steps, requests, inbox, titles) is the timeline's, not the chat's.
        return
    }
  }

  /** A restore: the one before it can no longer be undone (only the last one can). */
  private addRestored(event: EventDtoOf<'workspace/restored'>): void {
    this.closeUndo(event.seq)
    const { toSeq, written, removed, skipped, drifted } = event.data
    this.restores.set(event.seq, this.items.length)
    this.lastRestore = this.items.length
    this.items.push({
      kind: 'restore',
      key: `restore-${event.seq}`,
      seq: event.seq,
      turn: event.turn,
      rev: event.seq,
      action: 'restored',
      pointSeq: toSeq,
      written: written.map(({ path }) => path),
      removed,
      skipped,
      drifted,
      canUndo: true,
      isUndone: false,
    })
  }

  private addRestoreUndone(event: EventDtoOf<'workspace/restore-undone'>): void {
    const { restoredSeq, written, removed, skipped, drifted, cause } = event.data
    const index = this.restores.get(restoredSeq)
    const restored = index === undefined ? undefined : this.items[index]
    if (index !== undefined && restored?.kind === 'restore') {
      this.items[index] = { ...restored, isUndone: true, canUndo: false, rev: event.seq }
    }
    this.items.push({
      kind: 'restore',
      key: `restore-undone-${event.seq}`,
      seq: event.seq,
      turn: event.turn,
      rev: event.seq,
      action: 'undone',
      pointSeq: restoredSeq,
      written: written.map(({ path }) => path),
      removed,
      skipped,
      drifted,
      cause,
      canUndo: false,
      isUndone: false,
    })
  }

  /** The last restore stops being undoable: a turn started, or another restore came. */
  private closeUndo(seq: number): void {
    const index = this.lastRestore
    const item = index === undefined ? undefined : this.items[index]
    if (index !== undefined && item?.kind === 'restore' && item.canUndo) {
      this.items[index] = { ...item, canUndo: false, rev: seq }
    }
    this.lastRestore = undefined
  }

  /** An event that moves a tool call's card on: its approval, its start, its process, its result. */
  private addCallEvent(event: CallEvent): void {
    switch (event.type) {
      case 'approval/requested': {
        const { description, approvalKey, warnings } = event.data
        this.updateCall(event, (call) => {
          call.approval = {
            description,
            ...(approvalKey === undefined ? {} : { approvalKey }),
            ...(warnings === undefined || warnings.length === 0 ? {} : { warnings }),
          }
          if (call.status === 'queued') call.status = 'awaiting-approval'
        })
        return
      }
      case 'approval/decided': {
        const { decision, remember, reason, by, detail, grant } = event.data
        this.updateCall(event, (call) => {
          call.approval = {
            ...(call.approval ?? { description: '' }),
            decision,
            ...(remember === true ? { remember: true } : {}),
            ...(reason === undefined ? {} : { reason }),
            ...(by === undefined ? {} : { by }),
            ...(detail === undefined ? {} : { detail }),
            ...(grant === undefined ? {} : { grant }),
          }
          if (call.status === 'awaiting-approval') {
            call.status =
              decision === 'allow' ? 'queued' : decision === 'deny' ? 'denied' : 'interrupted'
          }
        })
        return
      }
      case 'process/started': {
        // Only a call already on screen: a process record never makes a card of its own.
        const { sandboxed } = event.data
        if (this.calls.has(callKey(placeOf(event)))) {
          this.updateCall(event, (call) => {
            call.sandboxed = sandboxed
          })
        }
        return
      }
      case 'tool/call': {
        const { args, mcp, name } = event.data
        this.updateCall(event, (call) => {
          // An inner call's first event may be its automatic decision, which names no tool.
          if (event.data.parent !== undefined) call.name = name
          call.args = args
          if (mcp !== undefined) call.mcp = { server: mcp.server, tool: mcp.tool }
          call.calledAt = event.at
          call.status = 'running'
        })
        return
      }
      case 'tool/result': {
        const { data } = event
        this.updateCall(event, (call) => applyResult(call, data, event.at))
        this.openCalls.delete(callKey(placeOf(event)))
        return
      }
    }
  }

  /**
   * A `task` call started its child session: the card links to it from now on. Logged in the
   * call's step; a call not on screen (an unannounced one) gets no card from this alone.
   */
  private addSubagent(event: EventDtoOf<'subagent/started'>): void {
    const { callId, sessionId, description } = event.data
    const key = callKey({ turn: event.turn, step: event.step, callId })
    const entry = this.calls.get(key)
    if (!entry) return
    entry.call.subagent = { sessionId: String(sessionId), description }
    entry.rev = event.seq
    this.dirty.add(key)
  }

  /** The items now, as a new array; a call's item is a snapshot, never the mutable call. */
  finish(): ChatItem[] {
    for (const key of this.dirty) {
      const entry = this.calls.get(key)
      const item = entry === undefined ? undefined : this.items[entry.index]
      if (entry && item?.kind === 'tool') {
        this.items[entry.index] = { ...item, rev: entry.rev, call: this.snapshot(entry) }
      }
    }
    this.dirty.clear()
    return this.items.slice()
  }

  /** A call as its card shows it: a copy, with copies of the calls it made. */
  private snapshot(entry: CallEntry): ToolCallView {
    const inner = entry.inner?.flatMap((key) => {
      const made = this.calls.get(key)
      return made ? [{ ...made.call }] : []
    })
    return inner === undefined ? { ...entry.call } : { ...entry.call, inner }
  }

  /** Marks the card that shows `key` as changed at `seq`: its own, or its parent's. */
  private touch(key: string, seq: number): void {
    const entry = this.calls.get(key)
    if (!entry) return
    entry.rev = seq
    const cardKey = entry.parentKey ?? key
    const card = this.calls.get(cardKey)
    if (card) card.rev = seq
    this.dirty.add(cardKey)
  }

  private addAssistant(event: EventDtoOf<'assistant/message'>): void {
    const { data } = event
    const { text, reasoning, calls } = assistantParts(data)
    const isInterrupted = data.interrupted === true
    const joined = text.join('').trim()
    const total = this.usage.get(event.turn) ?? { inputTokens: 0, outputTokens: 0 }
    total.inputTokens += data.usage?.inputTokens ?? 0
    total.outputTokens += data.usage?.outputTokens ?? 0
    this.usage.set(event.turn, total)
    if (joined !== '' || reasoning.length > 0 || isInterrupted || calls.length === 0) {
      this.items.push({
        kind: 'assistant',
        key: `assistant-${event.seq}`,
        seq: event.seq,
        turn: event.turn,
        rev: event.seq,
        step: event.step,
        text: text.join(''),
        reasoning: reasoning.join('\n\n'),
        isInterrupted,
        finish: data.finish,
      })
    }
    const textFormat = data.textCalls?.format
    for (const block of calls) {
      const place = { turn: event.turn, step: event.step, callId: block.callId }
      this.addCall(event, place, block.name, block.args, parseArgs(block.args), textFormat)
    }
  }

  private addCall(
    event: EventDto,
    place: CallPlace,
    name: string,
    argsText: string,
    args: unknown,
    textFormat?: string,
  ) {
    const key = callKey(place)
    const call: MutableCall = {
      key,
      callId: place.callId,
      step: place.step,
      name,
      args,
      argsText,
      status: 'queued',
      metadata: {},
      ...(textFormat === undefined ? {} : { textFormat }),
    }
    this.calls.set(key, { index: this.items.length, call, rev: event.seq })
    this.openCalls.add(key)
    this.dirty.add(key)
    const item: ToolItem = {
      kind: 'tool',
      key: `tool-${place.callId}-${event.seq}`,
      seq: event.seq,
      turn: event.turn,
      rev: event.seq,
      call,
    }
    this.items.push(item)
  }

  /**
   * Applies `change` to the call the event names; a call the log never announced gets a card,
   * unless another call made it (`parent`), which then lists it.
   */
  private updateCall(event: CallEvent, change: (call: MutableCall) => void): void {
    const place = placeOf(event)
    const key = callKey(place)
    if (!this.calls.has(key)) {
      const { name, args } = unannouncedCall(event)
      const parentKey = parentKeyOf(event)
      if (parentKey !== undefined && this.calls.has(parentKey))
        this.addInnerCall(place, parentKey, name, args)
      else this.addCall(event, place, name, '', args)
    }
    const entry = this.calls.get(key)
    if (!entry) return
    change(entry.call)
    this.touch(key, event.seq)
  }

  /** A call another call made: a row in its parent's card, closed like any call at turn end. */
  private addInnerCall(place: CallPlace, parentKey: string, name: string, args: unknown): void {
    const parent = this.calls.get(parentKey)
    if (!parent) return
    const key = callKey(place)
    const call: MutableCall = {
      key,
      callId: place.callId,
      step: place.step,
      name,
      args,
      argsText: args === undefined ? '' : JSON.stringify(args),
      status: 'queued',
      metadata: {},
    }
    this.calls.set(key, { index: parent.index, call, rev: parent.rev, parentKey })
    ;(parent.inner ??= []).push(key)
    this.openCalls.add(key)
  }

  /**
   * A turn a fork (or crash repair) closed ends at the time of the fork: its footer shows the
   * time up to its last real event instead, not the minutes until someone forked it.
   */
  private timeRepairedTurn(repairs: readonly { readonly seq: number }[]): void {
    const index = this.lastTurnEnd
    const item = index === undefined ? undefined : this.items[index]
    if (item?.kind !== 'turn-end' || !repairs.some((repair) => repair.seq === item.seq)) return
    const firstRepaired = Math.min(...repairs.map((repair) => repair.seq))
    const startAt = this.turnStartAt.get(item.turn)
    const lastReal = this.turnTimes.filter((time) => time.seq < firstRepaired).at(-1)
    if (index === undefined || startAt === undefined || lastReal === undefined) return
    this.items[index] = { ...item, durationMs: Math.max(0, lastReal.at - startAt) }
  }

  /** A turn's footer, and calls it left without a result are closed as the turn ended. */
  private endTurn(event: EventDtoOf<'turn/end'>): void {
    const { reason } = event.data
    for (const key of this.openCalls) {
      const entry = this.calls.get(key)
      if (!entry || this.items[entry.index]?.turn !== event.turn) continue
      this.openCalls.delete(key)
      const { call } = entry
      if (call.status === 'running') call.status = 'interrupted'
      else if (call.status === 'queued' || call.status === 'awaiting-approval') {
        call.status = 'not-started'
      } else continue
      this.touch(key, event.seq)
    }
    const startAt = this.turnStartAt.get(event.turn)
    this.lastTurnEnd = this.items.length
    this.items.push({
      kind: 'turn-end',
      key: `turn-end-${event.seq}`,
      seq: event.seq,
      turn: event.turn,
      rev: event.seq,
      reason,
      usage: this.usage.get(event.turn) ?? { inputTokens: 0, outputTokens: 0 },
      ...(startAt === undefined ? {} : { durationMs: Math.max(0, event.at - startAt) }),
      hasErrorRow: this.errorTurns.has(event.turn),
    })
  }
}

/** The item of an event that stands on its own in the chat (no later event changes it but undo). */
function standaloneItem(event: EventDto): ChatItem | undefined {
  const base = { seq: event.seq, turn: event.turn, rev: event.seq }
  switch (event.type) {
    case 'user/message': {
      const { kind, content: text } = event.data
      if (kind === 'context' || kind === 'notice')
        return { ...base, kind: 'context', purpose: kind, key: `context-${event.seq}`, text }
      const attachments = event.data.attachments ?? []
      return {
        ...base,
        kind: 'user',
        key: `user-${event.seq}`,
        text,
        ...(attachments.length === 0 ? {} : { attachments }),
      }
    }
    case 'notice': {
      const { level, code, message } = event.data
      return { ...base, kind: 'notice', key: `notice-${event.seq}`, level, code, message }
    }
    case 'workspace/diff':
      return {
        ...base,
        kind: 'changes',
        key: `changes-${event.seq}`,
        files: event.data.files.map(({ path, status, additions, deletions }) => ({
          path,
          status,
          additions,
          deletions,
        })),
      }
    case 'deliverable/present': {
      const { paths, note } = event.data
      return {
        ...base,
        kind: 'deliverable',
        key: `deliverable-${event.seq}`,
        paths: [...paths],
        ...(note === undefined ? {} : { note }),
      }
    }
    case 'error': {
      const { scope, code, message } = event.data
      const isRetry = scope === 'step' && /\(retry \d+ of \d+/.test(message)
      return { ...base, kind: 'error', key: `error-${event.seq}`, scope, code, message, isRetry }
    }
    case 'recovery/repaired':
      return {
        ...base,
        kind: 'recovered',
        key: `recovered-${event.seq}`,
        cause: event.data.cause,
        repairs: event.data.items.map(({ seq, what }) => ({ seq, what })),
      }
    case 'compaction/checkpoint': {
      const { fromSeq, toSeq, tokensBefore, tokensAfter } = event.data
      return {
        ...base,
        kind: 'checkpoint',
        key: `checkpoint-${event.seq}`,
        fromSeq,
        toSeq,
        tokensBefore,
        tokensAfter,
        isUndone: false,
      }
    }
    default:
      return undefined
  }
}

/** The key of the call that made this event's call (same turn and step), if another call did. */
function parentKeyOf(event: CallEvent): string | undefined {
  const parent = 'parent' in event.data ? event.data.parent : undefined
  if (parent === undefined) return undefined
  return callKey({ turn: event.turn, step: event.step, callId: parent.callId })
}

/** What a card shows for a call whose first event is not its `assistant/message`. */
function unannouncedCall(event: CallEvent): { name: string; args: unknown } {
  switch (event.type) {
    case 'tool/call':
      return { name: event.data.name, args: event.data.args }
    case 'approval/requested':
      return { name: event.data.tool, args: undefined }
    default:
      return { name: 'tool', args: undefined }
  }
}

function applyResult(call: MutableCall, data: EventDtoOf<'tool/result'>['data'], at: number): void {
  // Metadata is each tool's own (exit code, duration, paths): read field by field.
  const metadata = data.metadata ?? {}
  call.metadata = metadata
  call.endedAt = at
  if (data.outputRef !== undefined) call.outputRef = data.outputRef
  const sandboxed = metadata['sandboxed']
  if (typeof sandboxed === 'boolean') call.sandboxed = sandboxed
  const subagent = metadata['subagent']
  if (typeof subagent === 'string' && call.subagent?.sessionId !== subagent)
    call.subagent = { sessionId: subagent }
  const duration = num(metadata, 'durationMs')
  if (duration !== undefined) call.durationMs = duration
  else if (call.calledAt !== undefined) call.durationMs = Math.max(0, at - call.calledAt)
  if (data.ok) {
    call.output = data.output
    call.status = 'done'
    return
  }
  const { code, message } = data.error
  call.error = { code, message }
  call.status = statusOfFailure(code)
}

/** What a failed result means for the card: not every failure is the tool's fault. */
export function statusOfFailure(code: string): ToolStatus {
  if (code === TOOL_OUTCOME_UNKNOWN) return 'unknown'
  if (code === TOOL_NOT_STARTED) return 'not-started'
  if (INTERRUPTED_CODES.has(code)) return 'interrupted'
  if (DENIED_CODES.has(code)) return 'denied'
  return 'failed'
}
