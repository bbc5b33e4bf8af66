import { describe, expect, it } from 'vitest'
import type { ApprovalRequest, ModelProfileView, SessionSummary } from '../../protocol/contract'
import { OLLAMA_PROFILE } from '../fixtures/probe-samples'
import {
  FEED_EVENT_TYPES,
  gapStart,
  initialFeed,
  mergeEvents,
  olderEnd,
  reduceFeed,
} from '../../renderer/src/state/feed-reducer'
import type { FeedAction, FeedState, StreamDelta } from '../../renderer/src/state/feed-reducer'
import { EventCache } from '../../renderer/src/state/event-cache'
import { toSessionFeed } from '../../renderer/src/state/feed-view'
import { asEvent } from './event-fixture'

const SESSION = 's1'

const ev = (seq: number, type: string, data: Record<string, unknown> = {}, turn = 1, step = 1) =>
  asEvent({ seq, type, v: 1, turn, step, at: 1000 + seq, data })

const summary = (over: Partial<SessionSummary> = {}): SessionSummary => ({
  id: SESSION,
  parentId: null,
  forkSeq: null,
  title: null,
  projectDir: '/p',
  model: 'scripted',
  createdAt: 1,
  updatedAt: 2,
  messageCount: 0,
  eventCount: 0,
  deletedAt: null,
  isRunning: false,
  spawnedBy: null,
  ...over,
})

const delta = (text: string, turn = 1, step = 1): StreamDelta => ({
  sessionId: SESSION,
  turn,
  step,
  kind: 'text',
  text,
})

const approval = (callId: string, turn = 1, step = 1): ApprovalRequest => ({
  sessionId: SESSION,
  callId,
  turn,
  step,
  tool: 'bash',
  description: 'run npm test',
  args: { command: 'npm test' },
})

const run = (actions: readonly FeedAction[], from: FeedState = initialFeed(SESSION)) =>
  actions.reduce(reduceFeed, from)

const seqs = (state: FeedState) => state.events.map((event) => event.seq)

describe('paging', () => {
  it('pages the history in, in order, and stops loading at the last page', () => {
    const state = run([
      {
        type: 'page',
        fromSeq: 0,
        events: [ev(0, 'session/created'), ev(1, 'turn/start')],
        nextSeq: 2,
        length: 6,
      },
    ])
    expect(state.isLoading).toBe(true)
    expect(state.coveredTo).toBe(2)
    const done = run(
      [
        {
          type: 'page',
          fromSeq: 2,
          events: [ev(2, 'step/start'), ev(5, 'assistant/message')],
          nextSeq: null,
          length: 6,
        },
      ],
      state,
    )
    expect(done.isLoading).toBe(false)
    expect(seqs(done)).toEqual([0, 1, 2, 5])
    // Seqs 3 and 4 were chunks the filter left out: coverage runs to the history's length.
    expect(done.coveredTo).toBe(6)
    expect(gapStart(done)).toBeUndefined()
  })

  it('never keeps an assistant/chunk, and asks the server without them', () => {
    expect(FEED_EVENT_TYPES).not.toContain('assistant/chunk')
    expect(FEED_EVENT_TYPES).toContain('assistant/message')
    // Notices and process records are paged in though the contract does not forward them; each once.
    expect(FEED_EVENT_TYPES).toContain('notice')
    expect(FEED_EVENT_TYPES).toContain('process/started')
    expect(new Set(FEED_EVENT_TYPES).size).toBe(FEED_EVENT_TYPES.length)
    const state = run([
      {
        type: 'page',
        fromSeq: 0,
        events: [ev(0, 'session/created'), ev(1, 'assistant/chunk')],
        nextSeq: null,
        length: 2,
      },
      { type: 'event', event: ev(2, 'assistant/chunk') },
    ])
    expect(seqs(state)).toEqual([0])
  })

  it('keeps notifications that arrive while the history is still paging in', () => {
    const state = run([
      { type: 'event', event: ev(7, 'turn/end') },
      {
        type: 'page',
        fromSeq: 0,
        events: [ev(0, 'session/created'), ev(6, 'step/end')],
        nextSeq: null,
        length: 7,
      },
    ])
    expect(seqs(state)).toEqual([0, 6, 7])
    expect(state.coveredTo).toBe(8)
  })

  it('records a failure instead of loading forever', () => {
    const state = run([{ type: 'failed', message: 'NOT_FOUND' }])
    expect(state.isLoading).toBe(false)
    expect(state.error).toBe('NOT_FOUND')
  })
})

describe('opening on the tail', () => {
  const opened = () =>
    run([
      // A notification of an event logged while the tail was read.
      { type: 'event', event: ev(21, 'turn/end'), prevSeq: 20 },
      {
        type: 'tail',
        coveredFrom: 10,
        toSeq: 21,
        events: [ev(10, 'turn/start'), ev(12, 'user/message'), ev(20, 'step/end')],
        length: 21,
      },
    ])

  it('opens on the last page: a window from coveredFrom to the end, loaded', () => {
    const state = opened()
    expect(state.isLoading).toBe(false)
    expect(seqs(state)).toEqual([10, 12, 20, 21])
    expect(state.coveredFrom).toBe(10)
    // The notification followed on from the page's end, so coverage runs past it: no gap.
    expect(state.coveredTo).toBe(22)
    expect(gapStart(state)).toBeUndefined()
    expect(olderEnd(state)).toBe(10)
  })

  it('prepends older pages, one at a time, until the history starts', () => {
    const asked = run([{ type: 'older' }], opened())
    expect(asked.isLoadingOlder).toBe(true)
    // Asked once: another scroll does not ask again while the page is read.
    expect(olderEnd(asked)).toBeUndefined()
    const older = run(
      [
        {
          type: 'tail',
          coveredFrom: 4,
          toSeq: 10,
          events: [ev(4, 'turn/start'), ev(6, 'user/message')],
          length: 22,
        },
      ],
      asked,
    )
    expect(seqs(older)).toEqual([4, 6, 10, 12, 20, 21])
    expect(older.coveredFrom).toBe(4)
    expect(older.isLoadingOlder).toBe(false)
    expect(olderEnd(older)).toBe(4)
    const first = run(
      [
        { type: 'older' },
        { type: 'tail', coveredFrom: 0, toSeq: 4, events: [ev(0, 'session/created')], length: 22 },
      ],
      older,
    )
    expect(seqs(first)).toEqual([0, 4, 6, 10, 12, 20, 21])
    expect(first.coveredFrom).toBe(0)
    expect(olderEnd(first)).toBeUndefined()
  })

  it('does not join a page that stops short of the window (a hole stays uncovered)', () => {
    const state = run(
      [
        { type: 'older' },
        { type: 'tail', coveredFrom: 0, toSeq: 8, events: [ev(0, 'session/created')], length: 22 },
      ],
      opened(),
    )
    expect(state.coveredFrom).toBe(10)
    expect(olderEnd(state)).toBe(10)
  })

  it('takes a failed older read for an error, not a page still loading', () => {
    const state = run([{ type: 'older' }, { type: 'failed', message: 'DISCONNECTED' }], opened())
    expect(state.isLoadingOlder).toBe(false)
    expect(state.error).toBe('DISCONNECTED')
  })

  it('shows the panels whether older events exist', () => {
    const cache = new EventCache(SESSION, () => Promise.reject(new Error('not read')))
    const details = { type: 'details', details: { session: summary(), pendingApprovals: [] } }
    const view = toSessionFeed(run([details as FeedAction], opened()), cache)
    expect(view?.hasOlder).toBe(true)
    expect(view?.isLoadingOlder).toBe(false)
  })
})

describe('notifications', () => {
  const loaded = run([
    { type: 'page', fromSeq: 0, events: [ev(0, 'session/created')], nextSeq: null, length: 1 },
  ])

  it('appends events that follow on and moves the coverage with them', () => {
    const state = run(
      [
        { type: 'event', event: ev(1, 'turn/start') },
        { type: 'event', event: ev(2, 'step/start') },
      ],
      loaded,
    )
    expect(seqs(state)).toEqual([0, 1, 2])
    expect(state.coveredTo).toBe(3)
    expect(gapStart(state)).toBeUndefined()
  })

  it('drops an event it already has (same seq) and returns the same state', () => {
    const once = run([{ type: 'event', event: ev(1, 'turn/start') }], loaded)
    expect(reduceFeed(once, { type: 'event', event: ev(1, 'turn/start') })).toBe(once)
    const page = reduceFeed(once, {
      type: 'page',
      fromSeq: 0,
      events: [ev(0, 'session/created'), ev(1, 'turn/start')],
      nextSeq: null,
      length: 2,
    })
    expect(seqs(page)).toEqual([0, 1])
  })

  it('sees a gap past the coverage, and a refetch from there closes it', () => {
    const gapped = run([{ type: 'event', event: ev(4, 'assistant/message') }], loaded)
    expect(seqs(gapped)).toEqual([0, 4])
    expect(gapStart(gapped)).toBe(1)
    const filled = run(
      [
        {
          type: 'page',
          fromSeq: 1,
          events: [ev(1, 'turn/start'), ev(2, 'step/start'), ev(4, 'assistant/message')],
          nextSeq: null,
          length: 5,
        },
      ],
      gapped,
    )
    expect(seqs(filled)).toEqual([0, 1, 2, 4])
    expect(filled.coveredTo).toBe(5)
    expect(gapStart(filled)).toBeUndefined()
  })

  it('takes skipped chunks for no gap when the notification names the last event held', () => {
    // Seqs 1..3 were chunks: the host says the previous forwarded event was 0, which is held.
    const step = run([{ type: 'event', event: ev(4, 'assistant/message'), prevSeq: 0 }], loaded)
    expect(seqs(step)).toEqual([0, 4])
    expect(step.coveredTo).toBe(5)
    expect(gapStart(step)).toBeUndefined()
    // The first forwarded event of a log (-1: none before it) follows on from nothing.
    const first = run([{ type: 'event', event: ev(2, 'session/created'), prevSeq: -1 }], {
      ...initialFeed(SESSION),
      isLoading: false,
    })
    expect(first.coveredTo).toBe(3)
    expect(gapStart(first)).toBeUndefined()
  })

  it('still sees a gap when the event before the notification was never received', () => {
    // The previous forwarded event was 3, and the feed holds only up to 0: 1..3 were missed.
    const gapped = run([{ type: 'event', event: ev(6, 'tool/call'), prevSeq: 3 }], loaded)
    expect(gapped.coveredTo).toBe(1)
    expect(gapStart(gapped)).toBe(1)
    // Once the fetch brings them, the next notification follows on again.
    const filled = run(
      [
        {
          type: 'page',
          fromSeq: 1,
          events: [ev(1, 'turn/start'), ev(3, 'step/start'), ev(6, 'tool/call')],
          nextSeq: null,
          length: 7,
        },
        { type: 'event', event: ev(9, 'tool/result'), prevSeq: 6 },
      ],
      gapped,
    )
    expect(filled.coveredTo).toBe(10)
    expect(gapStart(filled)).toBeUndefined()
  })

  it('inserts an out-of-order event at its place', () => {
    const state = run(
      [
        { type: 'event', event: ev(3, 'step/end') },
        { type: 'event', event: ev(2, 'step/start') },
        { type: 'event', event: ev(1, 'turn/start') },
      ],
      loaded,
    )
    expect(seqs(state)).toEqual([0, 1, 2, 3])
    expect(state.coveredTo).toBe(4)
  })

  it('ignores what belongs to another session', () => {
    expect(
      reduceFeed(loaded, { type: 'delta', delta: { ...delta('x'), sessionId: 'other' } }),
    ).toBe(loaded)
    expect(
      reduceFeed(loaded, { type: 'approval', request: { ...approval('c1'), sessionId: 'other' } }),
    ).toBe(loaded)
  })
})

describe('streaming', () => {
  const loaded = run([
    { type: 'page', fromSeq: 0, events: [ev(0, 'session/created')], nextSeq: null, length: 1 },
  ])

  it("collects the current step's deltas and clears them when its message is logged", () => {
    const streaming = run(
      [
        { type: 'delta', delta: delta('Hel') },
        { type: 'delta', delta: delta('lo') },
      ],
      loaded,
    )
    expect(streaming.streaming.map((d) => d.text).join('')).toBe('Hello')
    const logged = run([{ type: 'event', event: ev(3, 'assistant/message', {}, 1, 1) }], streaming)
    expect(logged.streaming).toEqual([])
  })

  it("keeps only the newest step's deltas", () => {
    const state = run(
      [
        { type: 'delta', delta: delta('one', 1, 1) },
        { type: 'delta', delta: delta('two', 1, 2) },
      ],
      loaded,
    )
    expect(state.streaming.map((d) => d.text)).toEqual(['two'])
  })

  it('drops a late delta of a step whose message is already logged', () => {
    const state = run(
      [
        { type: 'event', event: ev(1, 'assistant/message', {}, 1, 1) },
        { type: 'delta', delta: delta('late', 1, 1) },
      ],
      loaded,
    )
    expect(state.streaming).toEqual([])
  })

  it('clears the deltas when the turn ends or the session stops running', () => {
    const streaming = run([{ type: 'delta', delta: delta('cut') }], loaded)
    expect(
      run([{ type: 'event', event: ev(1, 'turn/end', {}, 1, 0) }], streaming).streaming,
    ).toEqual([])
    expect(run([{ type: 'running', isRunning: false }], streaming).streaming).toEqual([])
  })
})

const PROFILE: ModelProfileView = { ...OLLAMA_PROFILE, windowSource: 'learned' }

describe('approvals and details', () => {
  const loaded = run([
    { type: 'page', fromSeq: 0, events: [ev(0, 'session/created')], nextSeq: null, length: 1 },
  ])

  it('takes the pending approvals, running state and window from session/get', () => {
    const state = run(
      [
        {
          type: 'details',
          details: {
            session: summary({ isRunning: true }),
            pendingApprovals: [approval('c1')],
            contextWindow: 32768,
            profile: PROFILE,
          },
        },
      ],
      loaded,
    )
    expect(state.session?.id).toBe(SESSION)
    expect(state.isRunning).toBe(true)
    expect(state.contextWindow).toBe(32768)
    expect(state.profile).toEqual(PROFILE)
    const cache = new EventCache(SESSION, () => Promise.reject(new Error('not read')))
    expect(toSessionFeed(state, cache)?.profile).toEqual(PROFILE)
    // A later answer without one (the session reopened, no turn run yet) clears it.
    const later = run(
      [{ type: 'details', details: { session: summary(), pendingApprovals: [] } }],
      state,
    )
    expect(later.profile).toBeUndefined()
    expect(toSessionFeed(later, cache)).not.toHaveProperty('profile')
    expect(state.pendingApprovals.map((a) => a.callId)).toEqual(['c1'])
  })

  it('adds notified requests once and removes them when approval/decided is logged', () => {
    const asked = run(
      [
        { type: 'approval', request: approval('c1') },
        { type: 'approval', request: approval('c1') },
        { type: 'approval', request: approval('c2') },
      ],
      loaded,
    )
    expect(asked.pendingApprovals.map((a) => a.callId)).toEqual(['c1', 'c2'])
    const decided = run(
      [{ type: 'event', event: ev(1, 'approval/decided', { callId: 'c1', decision: 'allow' }) }],
      asked,
    )
    expect(decided.pendingApprovals.map((a) => a.callId)).toEqual(['c2'])
  })

  it('a reused call id in a later step is a new question, not the decided one', () => {
    const decided = run(
      [
        {
          type: 'event',
          event: ev(1, 'approval/decided', { callId: 'call_0', decision: 'allow' }),
        },
      ],
      loaded,
    )
    const asked = run([{ type: 'approval', request: approval('call_0', 1, 2) }], decided)
    expect(asked.pendingApprovals.map((a) => [a.callId, a.step])).toEqual([['call_0', 2]])
    const answered = run(
      [
        {
          type: 'event',
          event: ev(2, 'approval/decided', { callId: 'call_0', decision: 'allow' }, 1, 2),
        },
      ],
      asked,
    )
    expect(answered.pendingApprovals).toEqual([])
  })

  it('does not bring back a decided approval from a stale session/get or notification', () => {
    const decided = run(
      [{ type: 'event', event: ev(1, 'approval/decided', { callId: 'c1', decision: 'deny' }) }],
      loaded,
    )
    const stale = run(
      [
        { type: 'details', details: { session: summary(), pendingApprovals: [approval('c1')] } },
        { type: 'approval', request: approval('c1') },
      ],
      decided,
    )
    expect(stale.pendingApprovals).toEqual([])
  })
})

describe('mergeEvents', () => {
  it('returns the same array when nothing is new', () => {
    const list = [ev(0, 'a'), ev(1, 'b')]
    expect(mergeEvents(list, [ev(1, 'b')])).toBe(list)
    expect(mergeEvents(list, [])).toBe(list)
  })

  it('appends a sorted tail and merges anything else by seq', () => {
    expect(mergeEvents([ev(0, 'a')], [ev(2, 'c'), ev(3, 'd')]).map((e) => e.seq)).toEqual([0, 2, 3])
    expect(
      mergeEvents([ev(0, 'a'), ev(3, 'd')], [ev(2, 'c'), ev(1, 'b')]).map((e) => e.seq),
    ).toEqual([0, 1, 2, 3])
  })
})

describe("a subagent's questions in its parent's feed", () => {
  const childAsks = (callId: string, child = 'kid'): ApprovalRequest => ({
    ...approval(callId),
    sessionId: child,
    subagent: { sessionId: SESSION, callId: 't1', description: 'look around' },
  })

  it('keeps them apart from its own (same place, other session) until decided or the child turn ends', () => {
    const asked = run([
      { type: 'approval', request: approval('c1') },
      { type: 'approval', request: childAsks('c1') },
      { type: 'approval', request: childAsks('c2', 'other-kid') },
    ])
    expect(asked.pendingApprovals).toEqual([approval('c1')])
    expect(asked.childApprovals).toEqual([childAsks('c1'), childAsks('c2', 'other-kid')])
    const decided = run(
      [
        {
          type: 'child-event',
          sessionId: 'kid',
          event: ev(9, 'approval/decided', { callId: 'c1', decision: 'allow' }),
        },
      ],
      asked,
    )
    // The child's decision settles the child's question only, not the parent's own at 1.1.c1.
    expect(decided.pendingApprovals).toEqual([approval('c1')])
    expect(decided.childApprovals).toEqual([childAsks('c2', 'other-kid')])
    const ended = run(
      [
        {
          type: 'child-event',
          sessionId: 'other-kid',
          event: ev(12, 'turn/end', { reason: 'cancelled' }),
        },
      ],
      decided,
    )
    expect(ended.childApprovals).toEqual([])
    expect(
      toSessionFeed(
        { ...ended, session: summary() },
        new EventCache(SESSION, () => Promise.reject(new Error('not read'))),
      )?.childApprovals,
    ).toEqual([])
  })

  it("splits session/get's pending list into its own and its children's", () => {
    const loaded = run([
      {
        type: 'details',
        details: { session: summary(), pendingApprovals: [approval('c1'), childAsks('c1')] },
      },
    ])
    expect(loaded.pendingApprovals).toEqual([approval('c1')])
    expect(loaded.childApprovals).toEqual([childAsks('c1')])
  })
})
