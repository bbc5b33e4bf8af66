import { describe, expect, it } from 'vitest'
import { EventDto } from '../../protocol/contract'
import type { StreamDelta } from '../../renderer/src/features/feed'
import {
  itemIndexForSeq,
  latestPromptTokens,
  latestServerCut,
  stabilizeItems,
  streamingItem,
} from '../../renderer/src/features/chat/items'
import { buildItems, ChatProjection } from '../../renderer/src/features/chat/projection'
import type { ChatItem } from '../../renderer/src/features/chat/items'
import {
  compactArgs,
  errorHint,
  formatDuration,
  noticeHint,
  sentence,
  toolErrorText,
  turnEndText,
} from '../../renderer/src/features/chat/format'
import { rowsOfChange, rowsOfPatch } from '../../renderer/src/features/chat/diff-lines'
import { isBinaryRef, previewOf } from '../../renderer/src/features/chat/tool-output'
import { asEvent } from './event-fixture'

/** A log written event by event: seq counts up, `at` is seq * 100 ms unless given. */
function log() {
  const events: EventDto[] = []
  let turn = 0
  let step = 0
  const add = (type: string, data: Record<string, unknown>, at?: number): EventDto => {
    const seq = events.length
    const event = asEvent({ seq, type, v: 1, turn, step, at: at ?? seq * 100, data })
    events.push(event)
    return event
  }
  return {
    events,
    add,
    startTurn(at?: number) {
      turn++
      step = 0
      return add('turn/start', {}, at)
    },
    startStep() {
      step++
      return add('step/start', {})
    },
  }
}

const text = (value: string) => ({ type: 'text', text: value })
const call = (callId: string, name: string, args: unknown) => ({
  type: 'tool-call',
  callId,
  name,
  args: JSON.stringify(args),
})

function only<K extends ChatItem['kind']>(
  items: ChatItem[],
  kind: K,
): Extract<ChatItem, { kind: K }>[] {
  return items.filter((item): item is Extract<ChatItem, { kind: K }> => item.kind === kind)
}

describe('buildItems: messages', () => {
  it('turns user and assistant messages into rows, context apart, in log order', () => {
    const l = log()
    l.add('session/created', { projectDir: '/p' })
    l.startTurn()
    l.add('user/message', { content: 'Hello', kind: 'input' })
    l.add('user/message', { content: 'date: today', kind: 'context' })
    l.startStep()
    l.add('request/start', { provider: 'x', model: 'm', params: {}, headerSeq: 0 })
    l.add('assistant/message', {
      blocks: [{ type: 'reasoning', text: 'hmm' }, text('Hi '), text('there')],
      finish: 'stop',
      usage: { inputTokens: 100, outputTokens: 7 },
    })
    l.add('step/end', { reason: 'completed' })
    l.add('turn/end', { reason: 'completed' })
    const items = buildItems(l.events)
    expect(items.map((i) => i.kind)).toEqual(['user', 'context', 'assistant', 'turn-end'])
    const [assistant] = only(items, 'assistant')
    expect(assistant).toMatchObject({ text: 'Hi there', reasoning: 'hmm', isInterrupted: false })
    expect(assistant?.seq).toBe(6)
  })

  it("keeps a user message's logged attachments on its row, and none when it had none", () => {
    const l = log()
    l.startTurn()
    const file = { kind: 'file', path: 'src/a.ts', text: 'export {}\n' }
    const image = { kind: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }
    l.add('user/message', { content: 'Look', kind: 'input', attachments: [file, image] })
    l.add('user/message', { content: 'Plain', kind: 'input' })
    const [withThem, plain] = only(buildItems(l.events), 'user')
    expect(withThem?.attachments).toEqual([file, image])
    expect(plain).not.toHaveProperty('attachments')
  })

  it('marks an interrupted answer, and a cancelled turn', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'Long story' })
    l.startStep()
    l.add('assistant/message', {
      blocks: [text('Once upon')],
      finish: 'cancelled',
      interrupted: true,
    })
    l.add('turn/end', { reason: 'cancelled' })
    const items = buildItems(l.events)
    expect(only(items, 'assistant')[0]?.isInterrupted).toBe(true)
    expect(only(items, 'turn-end')[0]?.reason).toBe('cancelled')
  })

  it('sums usage per turn and measures the turn', () => {
    const l = log()
    l.startTurn(1000)
    l.startStep()
    l.add('assistant/message', {
      blocks: [call('c1', 'read', { path: 'a' })],
      finish: 'tool-calls',
      usage: { inputTokens: 100, outputTokens: 10 },
    })
    l.startStep()
    l.add('assistant/message', {
      blocks: [text('done')],
      finish: 'stop',
      usage: { inputTokens: 150, outputTokens: 5 },
    })
    l.add('turn/end', { reason: 'completed' }, 4500)
    const [end] = only(buildItems(l.events), 'turn-end')
    expect(end?.usage).toEqual({ inputTokens: 250, outputTokens: 15 })
    expect(end?.durationMs).toBe(3500)
  })

  it('keeps an assistant message that only calls tools out of the message rows', () => {
    const l = log()
    l.startTurn()
    l.startStep()
    l.add('assistant/message', {
      blocks: [call('c1', 'list', { path: '.' })],
      finish: 'tool-calls',
    })
    expect(buildItems(l.events).map((i) => i.kind)).toEqual(['tool'])
  })
})

describe('buildItems: tool calls', () => {
  function approvalLog(decision?: 'allow' | 'deny') {
    const l = log()
    l.startTurn()
    l.startStep()
    l.add('assistant/message', {
      blocks: [text('Writing it.'), call('c1', 'write', { path: 'a.txt', content: 'x\n' })],
      finish: 'tool-calls',
    })
    l.add('approval/requested', {
      callId: 'c1',
      tool: 'write',
      description: 'write a.txt (1 lines)',
      approvalKey: 'a.txt',
    })
    if (decision) l.add('approval/decided', { callId: 'c1', decision, reason: 'not now' })
    return l
  }

  it('follows a call from approval to result, in the card where the model asked for it', () => {
    const l = approvalLog()
    const waiting = only(buildItems(l.events), 'tool')[0]
    expect(waiting?.call.status).toBe('awaiting-approval')
    expect(waiting?.call.approval).toEqual({
      description: 'write a.txt (1 lines)',
      approvalKey: 'a.txt',
    })
    expect(waiting?.seq).toBe(2)

    l.add('approval/decided', { callId: 'c1', decision: 'allow' })
    expect(only(buildItems(l.events), 'tool')[0]?.call.status).toBe('queued')
    l.add(
      'tool/call',
      { callId: 'c1', name: 'write', args: { path: 'a.txt', content: 'x\n' } },
      5000,
    )
    expect(only(buildItems(l.events), 'tool')[0]?.call).toMatchObject({
      status: 'running',
      calledAt: 5000,
    })
    l.add(
      'tool/result',
      {
        callId: 'c1',
        ok: true,
        output: 'Created a.txt',
        metadata: { path: 'a.txt', isCreated: true },
      },
      5250,
    )
    const items = buildItems(l.events)
    expect(items.map((i) => i.kind)).toEqual(['assistant', 'tool'])
    expect(only(items, 'tool')[0]?.call).toMatchObject({
      status: 'done',
      output: 'Created a.txt',
      durationMs: 250,
      metadata: { isCreated: true },
    })
  })

  it('keeps calls apart when the server reuses ids from step to step (call_0 in every reply)', () => {
    const l = log()
    l.startTurn()
    l.startStep()
    l.add('assistant/message', {
      blocks: [call('call_0', 'read', { path: 'a.txt' })],
      finish: 'tool-calls',
    })
    l.add('tool/call', { callId: 'call_0', name: 'read', args: { path: 'a.txt' } })
    l.add('tool/result', { callId: 'call_0', ok: true, output: 'a' })
    l.add('step/end', { reason: 'tool-calls' })
    l.startStep()
    l.add('assistant/message', {
      blocks: [call('call_0', 'write', { path: 'b.txt', content: 'b' })],
      finish: 'tool-calls',
    })
    l.add('approval/requested', { callId: 'call_0', tool: 'write', description: 'write b.txt' })
    const [read, write] = only(buildItems(l.events), 'tool')
    expect(read?.call).toMatchObject({ name: 'read', status: 'done', step: 1 })
    expect(read?.call.approval).toBeUndefined()
    expect(write?.call).toMatchObject({ name: 'write', status: 'awaiting-approval', step: 2 })
    expect(read?.call.key).not.toBe(write?.call.key)
  })

  it('prefers the duration the pipeline measured', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    l.add('tool/call', { callId: 'c1', name: 'bash', args: { command: 'ls' } })
    l.add('tool/result', {
      callId: 'c1',
      ok: true,
      output: 'x',
      metadata: { exitCode: 2, durationMs: 42 },
    })
    expect(only(buildItems(l.events), 'tool')[0]?.call.durationMs).toBe(42)
  })

  it('tells denied, interrupted, unknown and not-started apart from failed', () => {
    const cases: [string, string][] = [
      ['APPROVAL_DENIED', 'denied'],
      ['ABORTED', 'interrupted'],
      ['ABORTED_BEFORE_DISPATCH', 'interrupted'],
      ['TOOL_OUTCOME_UNKNOWN', 'unknown'],
      ['TOOL_NOT_STARTED', 'not-started'],
      ['EDIT_NO_MATCH', 'failed'],
    ]
    for (const [code, status] of cases) {
      const l = log()
      l.startTurn()
      l.add('assistant/message', { blocks: [call('c1', 'edit', {})], finish: 'tool-calls' })
      l.add('tool/result', { callId: 'c1', ok: false, error: { code, message: 'why' } })
      const [card] = only(buildItems(l.events), 'tool')
      expect(card?.call.status, code).toBe(status)
      expect(card?.call.error).toEqual({ code, message: 'why' })
    }
  })

  it('keeps the reason of a denial', () => {
    const l = approvalLog('deny')
    l.add('tool/result', {
      callId: 'c1',
      ok: false,
      error: { code: 'APPROVAL_DENIED', message: 'no' },
    })
    const [card] = only(buildItems(l.events), 'tool')
    expect(card?.call.status).toBe('denied')
    expect(card?.call.approval?.decision).toBe('deny')
    expect(card?.call.approval?.reason).toBe('not now')
  })

  it('keeps what the prompt warned of, and who decided (a rule, the user and the grant kept)', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [
        call('c1', 'bash', { command: 'git reset --hard' }),
        call('c2', 'bash', { command: 'npm test' }),
        call('c3', 'bash', { command: 'ls src' }),
      ],
      finish: 'tool-calls',
    })
    l.add('approval/requested', {
      callId: 'c1',
      tool: 'bash',
      description: 'git reset --hard',
      warnings: ['`git reset --hard` throws away uncommitted changes'],
    })
    l.add('approval/decided', { callId: 'c1', decision: 'deny', by: 'user' })
    l.add('approval/decided', {
      callId: 'c2',
      decision: 'allow',
      by: 'rule',
      detail: 'bash: npm test *',
    })
    l.add('approval/requested', {
      callId: 'c3',
      tool: 'bash',
      description: 'ls src',
      approvalKey: 'ls *',
      grantOptions: ['ls *', 'ls src'],
    })
    l.add('approval/decided', {
      callId: 'c3',
      decision: 'allow',
      by: 'user',
      remember: true,
      grant: 'ls src',
    })
    const [denied, byRule, remembered] = only(buildItems(l.events), 'tool').map((c) => c.call)
    expect(denied?.status).toBe('denied')
    expect(denied?.approval).toMatchObject({
      warnings: ['`git reset --hard` throws away uncommitted changes'],
      decision: 'deny',
      by: 'user',
    })
    // Decided automatically: it never waited, and the card can say which rule let it pass.
    expect(byRule?.status).toBe('queued')
    expect(byRule?.approval).toEqual({
      description: '',
      decision: 'allow',
      by: 'rule',
      detail: 'bash: npm test *',
    })
    expect(remembered?.approval).toMatchObject({ remember: true, grant: 'ls src' })
  })

  it('marks whether a command ran sandboxed: from its process, then its result', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'ls' }), call('c2', 'bash', { command: 'pwd' })],
      finish: 'tool-calls',
    })
    l.add('tool/call', { callId: 'c1', name: 'bash', args: { command: 'ls' } })
    l.add('process/started', { callId: 'c1', pid: 10, pgid: 10, sandboxed: true })
    // A process of a call the log never announced makes no card.
    l.add('process/started', { callId: 'ghost', pid: 11, pgid: 11, sandboxed: true })
    let cards = only(buildItems(l.events), 'tool')
    expect(cards.map((c) => c.call.callId)).toEqual(['c1', 'c2'])
    expect(cards[0]?.call.sandboxed).toBe(true)
    expect(cards[1]?.call.sandboxed).toBeUndefined()
    l.add('tool/result', {
      callId: 'c1',
      ok: true,
      output: 'a',
      metadata: { exitCode: 0, sandboxed: false },
    })
    // An older log's result, without the fact: nothing is claimed.
    l.add('tool/result', { callId: 'c2', ok: true, output: '/p', metadata: { exitCode: 0 } })
    cards = only(buildItems(l.events), 'tool')
    expect(cards[0]?.call.sandboxed).toBe(false)
    expect(cards[1]?.call.sandboxed).toBeUndefined()
  })

  it('closes calls a turn ended without a result', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'sleep 9' }), call('c2', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    l.add('tool/call', { callId: 'c1', name: 'bash', args: { command: 'sleep 9' } })
    l.add('turn/end', { reason: 'cancelled' })
    const cards = only(buildItems(l.events), 'tool')
    expect(cards.map((c) => c.call.status)).toEqual(['interrupted', 'not-started'])
  })

  it('shows arguments the model sent as broken JSON as text', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"command": "ls' }],
      finish: 'tool-calls',
    })
    const [card] = only(buildItems(l.events), 'tool')
    expect(card?.call.args).toBeUndefined()
    expect(card?.call.argsText).toBe('{"command": "ls')
  })
})

describe('buildItems: notices', () => {
  it('projects changes, deliverables, errors, recovery and checkpoints', () => {
    const l = log()
    l.startTurn()
    l.add('error', {
      scope: 'step',
      code: 'SERVER_ERROR',
      message: 'failed with 503 (retry 1 of 3 in 500 ms)',
    })
    l.add('error', { scope: 'turn', code: 'ENDPOINT_UNREACHABLE', message: 'endpoint refused' })
    l.add('workspace/diff', {
      files: [{ path: 'a.txt', status: 'added', additions: 1, deletions: 0, afterHash: 'h' }],
    })
    l.add('deliverable/present', { paths: ['a.txt'], note: 'the report' })
    l.add('turn/end', { reason: 'error' })
    l.add('recovery/repaired', { cause: 'crash', items: [{ seq: 3, what: 'closed turn 1' }] })
    const checkpoint = l.add('compaction/checkpoint', {
      fromSeq: 0,
      toSeq: 5,
      summary: 's',
      tokensBefore: 9000,
      tokensAfter: 800,
    })
    const items = buildItems(l.events)
    expect(items.map((i) => i.kind)).toEqual([
      'error',
      'error',
      'changes',
      'deliverable',
      'turn-end',
      'recovered',
      'checkpoint',
    ])
    expect(only(items, 'error').map((e) => e.isRetry)).toEqual([true, false])
    expect(only(items, 'turn-end')[0]?.hasErrorRow).toBe(true)
    expect(only(items, 'changes')[0]?.files).toEqual([
      { path: 'a.txt', status: 'added', additions: 1, deletions: 0 },
    ])
    expect(only(items, 'deliverable')[0]).toMatchObject({ paths: ['a.txt'], note: 'the report' })
    expect(only(items, 'recovered')[0]?.repairs).toEqual([{ seq: 3, what: 'closed turn 1' }])
    expect(only(items, 'checkpoint')[0]?.isUndone).toBe(false)

    l.add('compaction/undone', { checkpointSeq: checkpoint.seq })
    expect(only(buildItems(l.events), 'checkpoint')[0]?.isUndone).toBe(true)
  })

  it('shows a notice as a status row, and what Bridle told the model like context', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'Summarise notes.md', kind: 'input' })
    l.startStep()
    l.add('assistant/message', {
      blocks: [text('I will write it.')],
      finish: 'max-tokens',
    })
    l.add('step/end', { reason: 'max-tokens' })
    l.add('notice', {
      level: 'warning',
      code: 'OUTPUT_TRUNCATED',
      message:
        'the answer was cut at the output limit, and its tool call (write) did not run; the model is told and asked to make them again',
    })
    l.add('user/message', { content: 'Your previous reply was cut off.', kind: 'notice' })
    l.add('notice', { level: 'info', code: 'SOMETHING', message: 'for your information' })
    const items = buildItems(l.events)
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'notice', 'context', 'notice'])
    expect(only(items, 'assistant')[0]?.finish).toBe('max-tokens')
    expect(only(items, 'notice')).toMatchObject([
      { level: 'warning', code: 'OUTPUT_TRUNCATED', key: 'notice-5' },
      { level: 'info', code: 'SOMETHING', message: 'for your information' },
    ])
    // An unknown level or a missing message never reaches the chat: the bridge refuses it.
    const loud = {
      seq: 9,
      type: 'notice',
      v: 1,
      turn: 1,
      step: 1,
      at: 0,
      data: { level: 'loud', code: 7 },
    }
    expect(EventDto.safeParse(loud).success).toBe(false)
    const [told] = only(items, 'context')
    expect(told).toMatchObject({ purpose: 'notice', text: 'Your previous reply was cut off.' })
    // The user's own message is not what Bridle said.
    expect(only(items, 'user').map((u) => u.text)).toEqual(['Summarise notes.md'])
  })

  it('marks volatile context apart from notices to the model', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'date: today', kind: 'context' })
    l.add('user/message', { content: 'cut', kind: 'notice' })
    expect(only(buildItems(l.events), 'context').map((c) => c.purpose)).toEqual([
      'context',
      'notice',
    ])
  })

  it('notes on each card when the calls were read from the model’s text', () => {
    const l = log()
    l.startTurn()
    l.add('assistant/message', {
      blocks: [call('c1', 'read', { path: 'a.txt' }), call('c2', 'read', { path: 'b.txt' })],
      finish: 'tool-calls',
      textCalls: { format: 'hermes' },
    })
    l.add('assistant/message', {
      blocks: [call('c3', 'read', { path: 'c.txt' })],
      finish: 'tool-calls',
    })
    l.add('tool/result', { callId: 'c1', ok: true, output: 'a' })
    const cards = only(buildItems(l.events), 'tool')
    expect(cards.map((c) => c.call.textFormat)).toEqual(['hermes', 'hermes', undefined])
    // A later event of the call keeps the note.
    expect(cards[0]?.call).toMatchObject({ status: 'done', textFormat: 'hermes' })
    expect(cards[2]?.call).not.toHaveProperty('textFormat')
  })

  it('finds the latest cut the server made, for the banner', () => {
    const l = log()
    l.startTurn()
    expect(latestServerCut(l.events)).toBeUndefined()
    l.add('error', { scope: 'step', code: 'CONTEXT_TRUNCATED_BY_SERVER', message: 'first cut' })
    l.add('error', { scope: 'turn', code: 'SERVER_ERROR', message: 'other' })
    expect(latestServerCut(l.events)).toEqual({ seq: 1, message: 'first cut' })
    const second = l.add('error', {
      scope: 'step',
      code: 'CONTEXT_TRUNCATED_BY_SERVER',
      message: '',
    })
    expect(latestServerCut(l.events)).toEqual({ seq: second.seq, message: '' })
    // The error keeps its row in the chat, where it happened.
    const errors = only(buildItems(l.events), 'error')
    expect(errors.map((e) => e.code)).toEqual([
      'CONTEXT_TRUNCATED_BY_SERVER',
      'SERVER_ERROR',
      'CONTEXT_TRUNCATED_BY_SERVER',
    ])
    // A later turn without a cut: Bridle compacted since, so the banner has nothing to say.
    l.add('turn/end', { reason: 'completed' })
    l.startTurn()
    l.add('user/message', { content: 'next', kind: 'input' })
    expect(latestServerCut(l.events)).toBeUndefined()
  })

  it('reads payloads of unexpected shapes without throwing', () => {
    // Such payloads never reach the projection: the bridge parses every event with its type's
    // schema and refuses these (a notification is dropped, a page fails whole, with its reason).
    const l = log()
    l.add('assistant/message', { blocks: 'nope', textCalls: 'hermes' })
    l.add('notice', { level: null, message: { nested: true } })
    l.add('tool/result', { callId: 7 })
    l.add('workspace/diff', { files: [null, { path: 3 }] })
    for (const event of l.events) expect(EventDto.safeParse(event).success).toBe(false)
    expect(() => buildItems(l.events.filter((e) => EventDto.safeParse(e).success))).not.toThrow()
  })
})

describe('streaming, stability, lookup', () => {
  const delta = (kind: 'text' | 'reasoning', value: string): StreamDelta => ({
    sessionId: 's',
    turn: 2,
    step: 1,
    kind,
    text: value,
  })

  it('joins the live deltas into one streaming item', () => {
    expect(streamingItem([])).toBeUndefined()
    const item = streamingItem([
      delta('reasoning', 'let me '),
      delta('text', 'He'),
      delta('text', 'llo'),
    ])
    expect(item).toMatchObject({
      kind: 'streaming',
      key: 'stream-2-1',
      text: 'Hello',
      reasoning: 'let me ',
    })
  })

  it('keeps unchanged items identical and replaces changed ones', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'go' })
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    const first = stabilizeItems([], buildItems(l.events))
    expect(stabilizeItems(first, buildItems(l.events))).toBe(first)
    l.add('tool/call', { callId: 'c1', name: 'bash', args: { command: 'ls' } })
    const second = stabilizeItems(first, buildItems(l.events))
    expect(second).not.toBe(first)
    expect(second[0]).toBe(first[0])
    expect(second[1]).not.toBe(first[1])
  })

  it('finds the item that holds a seq', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'go' })
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    l.add('tool/call', { callId: 'c1', name: 'bash', args: {} })
    l.add('assistant/message', {
      blocks: [text('Listing.'), call('c2', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    const items = buildItems(l.events)
    expect(itemIndexForSeq(items, 0)).toBeUndefined()
    expect(itemIndexForSeq(items, 1)).toBe(0)
    expect(itemIndexForSeq(items, 3)).toBe(1)
    // A message and its calls start at the same event: the message is the one.
    expect(items[2]?.kind).toBe('assistant')
    expect(itemIndexForSeq(items, 4)).toBe(2)
  })

  it('reads the latest prompt estimate', () => {
    const l = log()
    expect(latestPromptTokens(l.events)).toBeUndefined()
    l.add('request/start', { estimate: { tokens: 1200 } })
    l.add('request/start', { estimate: { tokens: 3400 } })
    l.add('assistant/message', { blocks: [], finish: 'stop' })
    expect(latestPromptTokens(l.events)).toBe(3400)
  })
})

describe('format and diff helpers', () => {
  it('summarises a call by the argument that says what it does', () => {
    expect(compactArgs('bash', { command: 'npm test', timeoutMs: 5000 }, '')).toBe(
      'npm test · timeoutMs=5000',
    )
    expect(compactArgs('write', { path: 'a.txt', content: 'lots' }, '')).toBe('a.txt')
    expect(compactArgs('present', { paths: ['a', 'b'] }, '')).toBe('a, b')
    expect(compactArgs('custom', undefined, '{"broken')).toBe('{"broken')
    expect(compactArgs('bash', { command: 'x'.repeat(300) }, '').length).toBeLessThanOrEqual(120)
  })

  it('says what to do about an unreachable endpoint', () => {
    expect(
      errorHint(
        'ENDPOINT_UNREACHABLE',
        'endpoint refused at http://127.0.0.1:11434: is Ollama running?',
      ),
    ).toMatch(/ollama serve/)
    expect(errorHint('WHATEVER', '')).toBeUndefined()
  })

  it('says in words why a turn ended: a closing app, not a raw code', () => {
    expect(turnEndText('interrupted')).toEqual({
      text: expect.stringMatching(/^Stopped because Bridle was closing\./),
      tone: 'interrupted',
    })
    expect(turnEndText('interrupted').text).not.toContain('interrupted')
    expect(turnEndText('cancelled').text).toMatch(/Stopped by you/)
  })

  it('says what a tool error code means for the user, and what to do about a notice', () => {
    for (const code of [
      'STALE_FILE',
      'READ_BEFORE_WRITE',
      'SANDBOX_UNAVAILABLE',
      'GUARD_DENIED',
      'POLICY_DENIED',
    ]) {
      expect(toolErrorText(code), code).toMatch(/^[A-Z].*\.$/)
      expect(toolErrorText(code), code).not.toContain(code)
    }
    expect(toolErrorText('SANDBOX_UNAVAILABLE')).toMatch(/Settings/)
    expect(toolErrorText('EDIT_NO_MATCH')).toBeUndefined()
    expect(noticeHint('SANDBOX_OFF')).toMatch(/Settings/)
    expect(noticeHint('SANDBOX_UNAVAILABLE')).toMatch(/bubblewrap/)
    expect(noticeHint('SANDBOX_REQUIRED_UNAVAILABLE')).toMatch(/bubblewrap/)
    expect(noticeHint('DUPLICATE_CALL_ID')).toBeUndefined()
  })

  it('knows a binary output by its ref, so its bytes are never shown as text', () => {
    expect(isBinaryRef('s1/c1.bin')).toBe(true)
    expect(isBinaryRef('s1/c1.txt')).toBe(false)
    expect(isBinaryRef(undefined)).toBe(false)
  })

  it('makes a sentence of a core message', () => {
    expect(sentence('the answer was cut at the output limit')).toBe(
      'The answer was cut at the output limit.',
    )
    expect(sentence('  done.  ')).toBe('Done.')
    expect(sentence('set it (Settings)')).toBe('Set it (Settings)')
    expect(sentence('')).toBe('')
  })

  it('formats durations', () => {
    expect(formatDuration(250)).toBe('250 ms')
    expect(formatDuration(4200)).toBe('4.2 s')
    expect(formatDuration(125_000)).toBe('2 min 5 s')
  })

  it('numbers the rows of a patch and counts its lines', () => {
    const patch = ['--- a/x.ts', '+++ b/x.ts', '@@ -1,2 +1,2 @@', ' keep', '-old', '+new'].join(
      '\n',
    )
    const diff = rowsOfPatch(patch)
    expect(diff.rows.map((r) => r.kind)).toEqual(['hunk', 'ctx', 'del', 'add'])
    expect(diff.rows[3]).toMatchObject({ text: 'new', newLine: 2 })
    expect([diff.additions, diff.deletions]).toEqual([1, 1])
  })

  it('diffs an edit and caps long diffs', () => {
    expect(rowsOfChange('a\nb\n', 'a\nc\n').additions).toBe(1)
    const big = rowsOfChange(
      '',
      Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n'),
      100,
    )
    expect(big.rows.length).toBe(100)
    expect(big.hidden).toBeGreaterThan(800)
  })

  it('previews the first lines of an output', () => {
    expect(previewOf('short')).toEqual({ text: 'short', isCut: false })
    const long = Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n')
    expect(previewOf(long).isCut).toBe(true)
    expect(previewOf(long).text.split('\n')).toHaveLength(10)
  })
})

describe('ChatProjection', () => {
  it('adds only new events, keeps unchanged items, and starts over when the log is not extended', () => {
    const l = log()
    l.startTurn()
    l.add('user/message', { content: 'go' })
    l.add('assistant/message', {
      blocks: [call('c1', 'bash', { command: 'ls' })],
      finish: 'tool-calls',
    })
    const projection = new ChatProjection()
    const first = projection.update([...l.events])
    expect(projection.update(l.events.slice())).toBe(first)
    l.add('tool/call', { callId: 'c1', name: 'bash', args: { command: 'ls' } })
    const second = projection.update([...l.events])
    expect(second[0]).toBe(first[0])
    expect(second[1]).not.toBe(first[1])
    expect(second).toEqual(buildItems(l.events))
    // A log whose middle changed (a gap filled in) is projected afresh, same items kept.
    const reordered = [...l.events.slice(0, 2), ...l.events.slice(2)].map((e) => ({ ...e }))
    const third = projection.update(reordered)
    expect(third).toEqual(second)
    expect(third[0]).toBe(second[0])
  })
})
