import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LogError, Session } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
import { openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from './helpers.js'
import type { TempHome } from './helpers.js'

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (error) {
    return (error as { code?: string }).code ?? 'NO_CODE'
  }
  return undefined
}

describe('append', () => {
  it('numbers events 0..N-1 and a reload reads back exactly the same events', () => {
    const session = Session.create(store, { projectDir: '/p', title: 'first' })
    appendTurn(session, 'hello', [{ calls: ['c1', 'c2'] }, { reply: 'ok' }])
    session.close()
    const reopened = Session.open(home.open(), session.id, { mode: 'read' })
    const events = reopened.slice()
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
    expect(events).toEqual(session.slice())
    expect(events[0]?.type).toBe('session/created')
  })

  it('assigns turn and step numbers from 1, and 0 outside them', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'a', [{ calls: ['x'] }, {}])
    appendTurn(session, 'b')
    const starts = session.slice().filter((e) => e.type === 'step/start')
    expect(starts.map((e) => [e.turn, e.step])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ])
    expect(session.event(0)).toMatchObject({ turn: 0, step: 0 })
    const toolResult = session.slice().find((e) => e.type === 'tool/result')
    expect(toolResult).toMatchObject({ turn: 1, step: 1 })
  })

  it('returns deep-frozen events that the caller cannot change, and copies the input', () => {
    const session = Session.create(store, { projectDir: '/p' })
    const input = { requestId: 'r1', message: 'hi', wake: true }
    const event = session.append('inbox/queued', input)
    input.message = 'changed'
    expect(event.data.message).toBe('hi')
    expect(() => {
      ;(event.data as { message: string }).message = 'x'
    }).toThrow(TypeError)
    expect(() => {
      ;(event as { seq: number }).seq = 99
    }).toThrow(TypeError)
  })

  it('refuses data JSON cannot carry, changes nothing, and the next append gets the same seq', () => {
    const session = Session.create(store, { projectDir: '/p' })
    const seen: LogEvent[] = []
    session.subscribe((e) => seen.push(e))
    const before = session.length
    const cyclic: Record<string, unknown> = { title: 'x' }
    cyclic['self'] = cyclic
    const sparse: string[] = []
    sparse[2] = 'r'
    const bad: [string, unknown][] = [
      ['session/title', cyclic],
      ['session/title', { title: new Date() }],
      ['error', { scope: 'step', code: 'X', message: 'm', extra: Number.NaN }],
      ['tool/call', { callId: 'c', name: 'n', args: { n: -0 } }],
      ['tool/call', { callId: 'c', name: 'n', args: { when: new Date() } }],
      ['inbox/claimed', { requestIds: sparse }],
      ['session/title', { title: 42 }],
    ]
    for (const [type, data] of bad) {
      expect(codeOf(() => session.append(type as 'session/title', data as { title: string }))).toBe(
        'INVALID_EVENT',
      )
    }
    expect(codeOf(() => session.append('made/up' as 'session/title', { title: 'x' }))).toBe(
      'UNKNOWN_EVENT_TYPE',
    )
    expect(session.length).toBe(before)
    const next = session.append('session/title', { title: 'fine' })
    expect(next.seq).toBe(before)
    session.flushSync()
    expect(seen.map((e) => e.seq)).toEqual([before])
  })

  it('commits the events of one tick in one transaction and notifies only after the commit', async () => {
    const session = Session.create(store, { projectDir: '/p' })
    const commit = vi.spyOn(store, 'commitEvents')
    const reader = home.open()
    const seenOnDisk: number[] = []
    session.subscribe((event) => {
      seenOnDisk.push(
        reader.readOwnEvents(session.id, { fromSeq: event.seq, toSeq: event.seq + 1 }).length,
      )
    })
    for (let i = 0; i < 50; i++)
      session.append('inbox/queued', { requestId: `r${i}`, message: 'm', wake: false })
    expect(seenOnDisk).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(commit).toHaveBeenCalledTimes(1)
    expect(seenOnDisk).toHaveLength(50)
    expect(seenOnDisk.every((n) => n === 1)).toBe(true)
  })

  it('isolates a throwing listener: the event stays committed and later listeners still hear it', () => {
    const report = vi.fn()
    const session = Session.create(store, { projectDir: '/p', report })
    const later = vi.fn()
    session.subscribe(() => {
      throw new Error('listener bug')
    })
    session.subscribe(later)
    const event = session.append('session/title', { title: 't' })
    session.flushSync()
    expect(later).toHaveBeenCalledWith(event)
    expect(report).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'listener bug' }),
      expect.any(String),
    )
    expect(home.open().readOwnEvents(session.id).at(-1)?.seq).toBe(event.seq)
  })

  it('rolls every projection back when the commit fails, and flush reports it', async () => {
    const report = vi.fn()
    const session = Session.create(store, { projectDir: '/p', report })
    appendTurn(session, 'first')
    await session.flush()
    const lengthBefore = session.length
    const messagesBefore = session.deriveMessages()
    const heard = vi.fn()
    session.subscribe(heard)
    vi.spyOn(store, 'commitEvents').mockImplementationOnce(() => {
      throw new Error('disk full')
    })
    session.append('inbox/queued', { requestId: 'lost', message: 'm', wake: true })
    session.append('turn/start', {})
    session.append('step/start', {})
    session.append('user/message', { content: 'never stored' })
    await expect(session.flush()).rejects.toMatchObject({ code: 'WRITE_FAILED' })
    expect(session.length).toBe(lengthBefore)
    expect(session.isTurnOpen).toBe(false)
    expect(session.hasRequest('lost')).toBe(false)
    expect(session.deriveMessages()).toEqual(messagesBefore)
    expect(heard).not.toHaveBeenCalled()
    // The same events can be appended again, with the same seqs and turn number.
    const turn = session.append('turn/start', {})
    expect([turn.seq, turn.turn]).toEqual([lengthBefore, 2])
    await session.flush()
    expect(Session.open(home.open(), session.id, { mode: 'read' }).length).toBe(lengthBefore + 1)
  })

  it('fails loudly when another writer moved the stored tail (stale writer), leaving memory as it was', async () => {
    const session = Session.create(store, { projectDir: '/p', report: () => undefined })
    const other = home.open()
    const length = session.length
    other.write(() =>
      other.appendEvents(session.id, [
        {
          sessionId: session.id,
          seq: length,
          type: 'session/title',
          v: 1,
          turn: 0,
          step: 0,
          at: 1,
          data: '{"title":"x"}',
        },
      ]),
    )
    session.append('session/title', { title: 'mine' })
    const failure = await session.flush().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(LogError)
    expect((failure as LogError).code).toBe('WRITE_FAILED')
    expect(((failure as LogError).cause as { code?: string }).code).toBe('STALE_WRITER')
    expect(session.length).toBe(length)
  })
})

describe('turn enclosure and pairing', () => {
  it('refuses steps outside turns, turns inside turns and messages outside steps', () => {
    const session = Session.create(store, { projectDir: '/p' })
    expect(codeOf(() => session.append('step/start', {}))).toBe('ENCLOSURE')
    expect(codeOf(() => session.append('user/message', { content: 'x' }))).toBe('ENCLOSURE')
    expect(
      codeOf(() => session.append('assistant/chunk', { deltas: [{ kind: 'text', text: 'x' }] })),
    ).toBe('ENCLOSURE')
    session.append('turn/start', {})
    expect(codeOf(() => session.append('turn/start', {}))).toBe('ENCLOSURE')
    session.append('step/start', {})
    expect(codeOf(() => session.append('turn/end', { reason: 'completed' }))).toBe('ENCLOSURE')
    expect(codeOf(() => session.append('assistant/message', { blocks: [], finish: 'stop' }))).toBe(
      'ENCLOSURE',
    )
  })

  it('pairs each result with exactly one proposed call of its step', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.append('turn/start', {})
    session.append('step/start', {})
    const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
    session.append('request/start', {
      provider: 't',
      model: 'm',
      params: {},
      headerSeq: header.seq,
    })
    expect(codeOf(() => session.append('tool/result', { callId: 'a', ok: true, output: '' }))).toBe(
      'PAIRING',
    )
    expect(
      codeOf(() =>
        session.append('assistant/message', {
          blocks: [
            { type: 'tool-call', callId: 'a', name: 'read', args: '{}' },
            { type: 'tool-call', callId: 'a', name: 'read', args: '{}' },
          ],
          finish: 'tool-calls',
        }),
      ),
    ).toBe('PAIRING')
    session.append('assistant/message', {
      blocks: [
        { type: 'tool-call', callId: 'a', name: 'read', args: '{}' },
        { type: 'tool-call', callId: 'b', name: 'bash', args: '{}' },
      ],
      finish: 'tool-calls',
    })
    expect(
      codeOf(() => session.append('tool/call', { callId: 'zzz', name: 'read', args: {} })),
    ).toBe('PAIRING')
    session.append('tool/call', { callId: 'a', name: 'read', args: {} })
    expect(codeOf(() => session.append('tool/call', { callId: 'a', name: 'read', args: {} }))).toBe(
      'PAIRING',
    )
    session.append('tool/result', { callId: 'a', ok: true, output: 'x' })
    expect(
      codeOf(() => session.append('tool/result', { callId: 'a', ok: true, output: 'x' })),
    ).toBe('PAIRING')
    expect(codeOf(() => session.append('step/end', { reason: 'tool-calls' }))).toBe('PAIRING')
    session.append('tool/result', {
      callId: 'b',
      ok: false,
      error: { code: 'APPROVAL_DENIED', message: 'no' },
    })
    session.append('step/end', { reason: 'tool-calls' })
    expect(session.pendingCalls()).toEqual([])
  })
})

describe('inbox', () => {
  it('ignores nothing silently: a repeated requestId is refused, and the queue survives a reopen', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.append('inbox/queued', { requestId: 'r1', message: 'one', wake: true })
    session.append('inbox/queued', { requestId: 'r2', message: 'two', wake: false })
    expect(
      codeOf(() =>
        session.append('inbox/queued', { requestId: 'r1', message: 'again', wake: true }),
      ),
    ).toBe('DUPLICATE_REQUEST')
    session.append('inbox/claimed', { requestIds: ['r1'] })
    expect(codeOf(() => session.append('inbox/claimed', { requestIds: ['r1'] }))).toBe(
      'INVALID_EVENT',
    )
    expect(codeOf(() => session.append('inbox/claimed', { requestIds: ['nope'] }))).toBe(
      'INVALID_EVENT',
    )
    session.close()
    const reopened = Session.open(home.open(), session.id)
    expect(reopened.queuedInput().map((q) => q.requestId)).toEqual(['r2'])
    expect(reopened.hasRequest('r1')).toBe(true)
  })
})

describe('the writer lock', () => {
  it('refuses a second writer of the same session, and allows readers', () => {
    const session = Session.create(store, { projectDir: '/p' })
    expect(codeOf(() => Session.open(home.open(), session.id))).toBe('SESSION_LOCKED')
    expect(Session.open(home.open(), session.id, { mode: 'read' }).length).toBe(session.length)
    session.close()
    expect(Session.open(home.open(), session.id).length).toBe(1)
  })

  it('refuses appends to a read-only or closed session', () => {
    const session = Session.create(store, { projectDir: '/p' })
    const reader = Session.open(home.open(), session.id, { mode: 'read' })
    expect(codeOf(() => reader.append('session/title', { title: 'x' }))).toBe('READ_ONLY')
    session.close()
    expect(codeOf(() => session.append('session/title', { title: 'x' }))).toBe('CLOSED')
  })
})

describe('reading back', () => {
  it('refuses a stored row whose turn or step contradicts the log, naming session and seq', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.close()
    const other = home.open()
    other.write(() =>
      other.appendEvents(session.id, [
        {
          sessionId: session.id,
          seq: 1,
          type: 'turn/start',
          v: 1,
          turn: 7,
          step: 3,
          at: 1,
          data: '{}',
        },
      ]),
    )
    expect(() => Session.open(home.open(), session.id, { mode: 'read' })).toThrow(
      expect.objectContaining({
        code: 'CORRUPT_LOG',
        message: expect.stringContaining(`session ${session.id} seq 1`),
      }),
    )
  })

  it('refuses an unknown type or invalid data in a stored row', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.close()
    const other = home.open()
    other.write(() =>
      other.appendEvents(session.id, [
        {
          sessionId: session.id,
          seq: 1,
          type: 'future/thing',
          v: 1,
          turn: 0,
          step: 0,
          at: 1,
          data: '{}',
        },
      ]),
    )
    expect(() => Session.open(home.open(), session.id, { mode: 'read' })).toThrow(
      expect.objectContaining({
        code: 'CORRUPT_LOG',
        message: expect.stringContaining('unknown event type'),
      }),
    )
  })
})

describe('ownership', () => {
  it('never shares objects with the caller: tool arguments stay the caller’s to change', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.append('turn/start', {})
    session.append('step/start', {})
    const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
    const params = { temperature: 0.2, stop: ['x'] }
    session.append('request/start', { provider: 't', model: 'm', params, headerSeq: header.seq })
    session.append('assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'c', name: 'read', args: '{}' }],
      finish: 'tool-calls',
    })
    const args = { path: 'a.txt', options: { lines: [1, 2] } }
    const call = session.append('tool/call', { callId: 'c', name: 'read', args })
    args.options.lines.push(3)
    params.stop.push('y')
    expect(Object.isFrozen(args)).toBe(false)
    expect(call.data.args).toEqual({ path: 'a.txt', options: { lines: [1, 2] } })
    expect(session.event(header.seq + 1)?.data).toMatchObject({ params: { stop: ['x'] } })
  })
})

describe('durability', () => {
  it('a background commit skips the fsync; the next flush pays one for it and all before', async () => {
    const own = openStore(store.path)
    const session = Session.create(own, { projectDir: '/p' })
    const synced = () => own.counters().syncedCommits
    const atStart = synced()
    session.append('inbox/queued', { requestId: 'r1', message: 'm', wake: false })
    await new Promise((resolve) => setImmediate(resolve))
    // Committed (another connection reads it) without an fsync.
    expect(home.open().readOwnEvents(session.id)).toHaveLength(2)
    expect(synced()).toBe(atStart)
    await session.flush({ isSynced: false })
    expect(synced()).toBe(atStart)
    // Nothing left to commit, but the background commit is not durable yet: one fsync.
    await session.flush()
    expect(synced()).toBe(atStart + 1)
    await session.flush()
    expect(synced()).toBe(atStart + 1)
    // Rows committed by the flush itself: one commit, one fsync.
    session.append('inbox/queued', { requestId: 'r2', message: 'm', wake: false })
    await session.flush()
    expect(synced()).toBe(atStart + 2)
    session.close()
    own.close()
  })
})
