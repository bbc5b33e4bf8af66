/**
 * The projection of a session log into chat items (the types and the small helpers are in
 * items.ts). One pass in log order; a tool call's later events (approval, `tool/call`,
 * `tool/result`, the turn's end) update its item in place, where the model asked for it.
 */
import type { EventDto } from '../../../../protocol/contract'
import { decidedBy } from './approval-words'
import { stabilizeItems, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './items'
import type { ChatItem, FileSummary, ToolCallView, ToolStatus, Usage } from './items'
import { num, optStr, record, records, str, strings } from './read-data'
import type { Data } from './read-data'

const INTERRUPTED_CODES = new Set(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'CANCELLED'])
const DENIED_CODES = new Set(['APPROVAL_DENIED', 'POLICY_DENIED', 'GUARD_DENIED'])

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ToolItem = Extract<ChatItem, { kind: 'tool' }>
type MutableCall = Mutable<ToolCallView>

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
  /** Calls changed since the last `finish`: their items are re-snapshotted then. */
  private readonly dirty = new Set<string>()
  private readonly calls = new Map<string, { index: number; call: MutableCall; rev: number }>()
  /** Calls without a result yet: what a turn's end closes (kept small, unlike `calls`). */
  private readonly openCalls = new Set<string>()
  private readonly checkpoints = new Map<number, number>()
  private readonly turnStartAt = new Map<number, number>()
  private readonly usage = new Map<number, Mutable<Usage>>()
  private readonly errorTurns = new Set<number>()

  add(event: EventDto): void {
    const data = event.data
    const base = { seq: event.seq, turn: event.turn, rev: event.seq }
    switch (event.type) {
      case 'user/message': {
        const kind = str(data, 'kind')
        const text = str(data, 'content')
        if (kind === 'context' || kind === 'notice') {
          this.items.push({
            ...base,
            kind: 'context',
            purpose: kind,
            key: `context-${event.seq}`,
            text,
          })
        } else {
          this.items.push({ ...base, kind: 'user', key: `user-${event.seq}`, text })
        }
        return
      }
      case 'notice':
        this.items.push({
          ...base,
          kind: 'notice',
          key: `notice-${event.seq}`,
          level: str(data, 'level') === 'info' ? 'info' : 'warning',
          code: str(data, 'code'),
          message: str(data, 'message'),
        })
        return
      case 'assistant/message':
        this.addAssistant(event)
        return
      case 'approval/requested':
        this.updateCall(event, (call) => {
          const approvalKey = optStr(data, 'approvalKey')
          const warnings = strings(data['warnings'])
          call.approval = {
            description: str(data, 'description'),
            ...(approvalKey === undefined ? {} : { approvalKey }),
            ...(warnings.length === 0 ? {} : { warnings }),
          }
          if (call.status === 'queued') call.status = 'awaiting-approval'
        })
        return
      case 'approval/decided':
        this.updateCall(event, (call) => {
          const decision = str(data, 'decision')
          const reason = optStr(data, 'reason')
          const by = decidedBy(data['by'])
          const detail = optStr(data, 'detail')
          const grant = optStr(data, 'grant')
          call.approval = {
            ...(call.approval ?? { description: '' }),
            ...(decision === 'allow' || decision === 'deny' || decision === 'cancelled'
              ? { decision }
              : {}),
            ...(data['remember'] === true ? { remember: true } : {}),
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
      case 'process/started':
        // Only a call already on screen: a process record never makes a card of its own.
        if (typeof data['sandboxed'] === 'boolean' && this.calls.has(str(data, 'callId'))) {
          const sandboxed = data['sandboxed']
          this.updateCall(event, (call) => {
            call.sandboxed = sandboxed
          })
        }
        return
      case 'tool/call':
        this.updateCall(event, (call) => {
          call.args = data['args']
          call.calledAt = event.at
          call.status = 'running'
        })
        return
      case 'tool/result':
        this.updateCall(event, (call) => applyResult(call, data, event.at))
        this.openCalls.delete(str(data, 'callId'))
        return
      case 'workspace/diff':
        this.items.push({
          ...base,
          kind: 'changes',
          key: `changes-${event.seq}`,
          files: fileSummaries(data),
        })
        return
      case 'deliverable/present': {
        const note = optStr(data, 'note')
        this.items.push({
          ...base,
          kind: 'deliverable',
          key: `deliverable-${event.seq}`,
          paths: strings(data['paths']),
          ...(note === undefined ? {} : { note }),
        })
        return
      }
      case 'error': {
        const scope = str(data, 'scope')
        const message = str(data, 'message')
        const isRetry = scope === 'step' && /\(retry \d+ of \d+/.test(message)
        if (!isRetry) this.errorTurns.add(event.turn)
        this.items.push({
          ...base,
          kind: 'error',
          key: `error-${event.seq}`,
          scope,
          code: str(data, 'code'),
          message,
          isRetry,
        })
        return
      }
      case 'turn/start':
        this.turnStartAt.set(event.turn, event.at)
        return
      case 'turn/end':
        this.endTurn(event)
        return
      case 'recovery/repaired':
        this.items.push({
          ...base,
          kind: 'recovered',
          key: `recovered-${event.seq}`,
          cause: str(data, 'cause'),
          repairs: records(data['items']).map((r) => ({
            seq: num(r, 'seq') ?? 0,
            what: str(r, 'what'),
          })),
        })
        return
      case 'compaction/checkpoint':
        this.checkpoints.set(event.seq, this.items.length)
        this.items.push({
          ...base,
          kind: 'checkpoint',
          key: `checkpoint-${event.seq}`,
          fromSeq: num(data, 'fromSeq') ?? 0,
          toSeq: num(data, 'toSeq') ?? 0,
          tokensBefore: num(data, 'tokensBefore') ?? 0,
          tokensAfter: num(data, 'tokensAfter') ?? 0,
          isUndone: false,
        })
        return
      case 'compaction/undone': {
        const index = this.checkpoints.get(num(data, 'checkpointSeq') ?? -1)
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

  /** The items now, as a new array; a call's item is a snapshot, never the mutable call. */
  finish(): ChatItem[] {
    for (const callId of this.dirty) {
      const entry = this.calls.get(callId)
      const item = entry === undefined ? undefined : this.items[entry.index]
      if (entry && item?.kind === 'tool') {
        this.items[entry.index] = { ...item, rev: entry.rev, call: { ...entry.call } }
      }
    }
    this.dirty.clear()
    return this.items.slice()
  }

  private addAssistant(event: EventDto): void {
    const data = event.data
    const blocks = records(data['blocks'])
    const text = blocks.filter((b) => b['type'] === 'text').map((b) => str(b, 'text'))
    const reasoning = blocks.filter((b) => b['type'] === 'reasoning').map((b) => str(b, 'text'))
    const isInterrupted = data['interrupted'] === true
    const joined = text.join('').trim()
    const hasCalls = blocks.some((b) => b['type'] === 'tool-call')
    const usage = record(data['usage'])
    const total = this.usage.get(event.turn) ?? { inputTokens: 0, outputTokens: 0 }
    total.inputTokens += num(usage, 'inputTokens') ?? 0
    total.outputTokens += num(usage, 'outputTokens') ?? 0
    this.usage.set(event.turn, total)
    if (joined !== '' || reasoning.length > 0 || isInterrupted || !hasCalls) {
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
        finish: str(data, 'finish'),
      })
    }
    const textFormat = optStr(record(data['textCalls']), 'format')
    for (const block of blocks) {
      if (block['type'] !== 'tool-call') continue
      const callId = str(block, 'callId')
      const argsText = str(block, 'args')
      this.addCall(event, callId, str(block, 'name'), argsText, parseArgs(argsText), textFormat)
    }
  }

  private addCall(
    event: EventDto,
    callId: string,
    name: string,
    argsText: string,
    args: unknown,
    textFormat?: string,
  ) {
    const call: MutableCall = {
      callId,
      name,
      args,
      argsText,
      status: 'queued',
      metadata: {},
      ...(textFormat === undefined ? {} : { textFormat }),
    }
    this.calls.set(callId, { index: this.items.length, call, rev: event.seq })
    this.openCalls.add(callId)
    this.dirty.add(callId)
    const item: ToolItem = {
      kind: 'tool',
      key: `tool-${callId}-${event.seq}`,
      seq: event.seq,
      turn: event.turn,
      rev: event.seq,
      call,
    }
    this.items.push(item)
  }

  /** Applies `change` to the call the event names; a call the log never announced gets a card. */
  private updateCall(event: EventDto, change: (call: MutableCall) => void): void {
    const callId = str(event.data, 'callId')
    if (!this.calls.has(callId)) {
      const name = str(event.data, 'name') || str(event.data, 'tool') || 'tool'
      this.addCall(event, callId, name, '', event.data['args'])
    }
    const entry = this.calls.get(callId)
    if (!entry) return
    change(entry.call)
    entry.rev = event.seq
    this.dirty.add(callId)
  }

  /** A turn's footer, and calls it left without a result are closed as the turn ended. */
  private endTurn(event: EventDto): void {
    const reason = str(event.data, 'reason')
    for (const callId of this.openCalls) {
      const entry = this.calls.get(callId)
      if (!entry || this.items[entry.index]?.turn !== event.turn) continue
      this.openCalls.delete(callId)
      const { call } = entry
      if (call.status === 'running') call.status = 'interrupted'
      else if (call.status === 'queued' || call.status === 'awaiting-approval') {
        call.status = 'not-started'
      } else continue
      entry.rev = event.seq
      this.dirty.add(callId)
    }
    const startAt = this.turnStartAt.get(event.turn)
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

function applyResult(call: MutableCall, data: Data, at: number): void {
  const metadata = record(data['metadata'])
  call.metadata = metadata
  call.endedAt = at
  const outputRef = optStr(data, 'outputRef')
  if (outputRef !== undefined) call.outputRef = outputRef
  const sandboxed = metadata['sandboxed']
  if (typeof sandboxed === 'boolean') call.sandboxed = sandboxed
  const duration = num(metadata, 'durationMs')
  if (duration !== undefined) call.durationMs = duration
  else if (call.calledAt !== undefined) call.durationMs = Math.max(0, at - call.calledAt)
  if (data['ok'] === true) {
    call.output = str(data, 'output')
    call.status = 'done'
    return
  }
  const error = record(data['error'])
  const code = str(error, 'code')
  call.error = { code, message: str(error, 'message') }
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

function fileSummaries(data: Data): FileSummary[] {
  return records(data['files']).map((file) => ({
    path: str(file, 'path'),
    status: str(file, 'status'),
    additions: num(file, 'additions') ?? 0,
    deletions: num(file, 'deletions') ?? 0,
  }))
}
