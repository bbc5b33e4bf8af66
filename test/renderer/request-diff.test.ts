import { describe, expect, it } from 'vitest'
import type { RequestView } from '../../protocol/contract'
import { diffRequests, previousRequestSeq } from '../../renderer/src/features/timeline/request-diff'
import type { RequestMessage } from '../../renderer/src/features/timeline/request-diff'

const msg = (
  role: RequestMessage['role'],
  seq: number,
  content: string,
  extra: Partial<RequestMessage> = {},
): RequestMessage => ({ role, seq, content, tokens: content.length, ...extra })

const request = (
  startSeq: number,
  messages: RequestMessage[],
  tools = ['read'],
  params: Record<string, unknown> = {},
): RequestView => ({
  startSeq,
  model: 'm',
  params,
  messages,
  tools: tools.map((name) => ({ name, description: '', parameters: {} })),
  tokens: {
    system: 0,
    tools: 0,
    history: 0,
    checkpoint: 0,
    toolOutputs: 0,
    total: 0,
    method: 'estimate',
  },
})

const system = msg('system', 2, 'You are Bridle.')
const question = msg('user', 4, 'Read both files')
const calls = msg('assistant', 7, '', {
  toolCalls: [
    { callId: 'a', name: 'read', args: '{}' },
    { callId: 'b', name: 'read', args: '{}' },
  ],
})
const outA = msg('tool', 10, 'file a', { callId: 'a' })
const outB = msg('tool', 11, 'file b', { callId: 'b' })

describe('diffRequests', () => {
  it('marks only the messages a follow-up request added as new', () => {
    const first = request(5, [system, question])
    const second = request(13, [system, question, calls, outA, outB])
    const diff = diffRequests(first, second)
    expect(diff.entries.map((e) => e.status)).toEqual(['same', 'same', 'new', 'new', 'new'])
    expect(diff.sharedPrefix).toBe(2)
    expect(diff.removed).toEqual([])
    expect(diff.addedTokens).toBe(outA.tokens + outB.tokens)
    expect(diff.tools).toEqual({ added: [], removed: [] })
  })

  it('tells two tool outputs apart by call, though they could share text', () => {
    const same = msg('tool', 10, 'x', { callId: 'b' })
    const diff = diffRequests(request(1, [outA]), request(2, [same]))
    expect(diff.entries[0]?.status).toBe('new')
    expect(diff.removed.map((r) => r.message.callId)).toEqual(['a'])
  })

  it('says which checkpoint replaced the messages that are gone', () => {
    const before = request(13, [system, question, calls, outA, outB])
    const summary = msg('user', 20, 'SUMMARY', { kind: 'summary' })
    const after = request(22, [system, summary, outB])
    const diff = diffRequests(before, after)
    expect(diff.entries.map((e) => e.status)).toEqual(['same', 'new', 'same'])
    expect(diff.removed.map((r) => [r.message.seq, r.replacedBy])).toEqual([
      [4, 20],
      [7, 20],
      [10, 20],
    ])
    expect(diff.sharedPrefix).toBe(1)
    // Explicit ranges win over the guess.
    const ranged = diffRequests(before, after, [{ seq: 99, fromSeq: 3, toSeq: 8 }])
    expect(ranged.removed.map((r) => r.replacedBy)).toEqual([99, 99, 20])
  })

  it('marks a message that kept its place but changed (a pruned output), with the old one', () => {
    const pruned = msg('tool', 10, '[output pruned]', { callId: 'a', kind: 'pruned' })
    const diff = diffRequests(request(1, [system, outA]), request(2, [system, pruned]))
    expect(diff.entries[1]).toEqual({ message: pruned, status: 'changed', before: outA })
    expect(diff.sharedPrefix).toBe(1)
  })

  it('treats everything as new for the first request, and reports tool and param changes', () => {
    expect(diffRequests(undefined, request(1, [system])).entries[0]?.status).toBe('new')
    const diff = diffRequests(
      request(1, [system], ['read', 'bash'], { temperature: 0 }),
      request(2, [system], ['read', 'edit'], { temperature: 0.5 }),
    )
    expect(diff.tools).toEqual({ added: ['edit'], removed: ['bash'] })
    expect(diff.changedParams).toEqual(['temperature'])
  })
})

describe('previousRequestSeq', () => {
  it('finds the latest request/start before a seq', () => {
    expect(previousRequestSeq([5, 13, 22], 22)).toBe(13)
    expect(previousRequestSeq([5, 13, 22], 5)).toBeUndefined()
  })
})
