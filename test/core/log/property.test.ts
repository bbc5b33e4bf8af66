import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forkSession, Session, SUMMARY_PREFIX } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from './helpers.js'

/**
 * A reference derivation written independently of the Session's incremental one: replay the
 * events, keep model-visible ones, splice checkpoints in and out. The real derivation must agree.
 */
function referenceMessages(events: readonly LogEvent[]): { seq: number; text: string }[] {
  type Item = { seq: number; text: string; replaced?: Item[] }
  let items: Item[] = []
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        items.push({ seq: event.seq, text: event.data.content })
        break
      case 'assistant/message':
        items.push({
          seq: event.seq,
          text: event.data.blocks
            .map((b) => (b.type === 'tool-call' ? b.callId : b.text))
            .join('|'),
        })
        break
      case 'tool/result':
        items.push({
          seq: event.seq,
          text: event.data.ok
            ? event.data.output
            : `${event.data.error.code}: ${event.data.error.message}`,
        })
        break
      case 'compaction/checkpoint': {
        const from = items.findIndex((i) => i.seq === event.data.fromSeq)
        const to = items.findIndex((i) => i.seq === event.data.toSeq)
        const replaced = items.slice(from, to + 1)
        items = [
          ...items.slice(0, from),
          { seq: event.seq, text: SUMMARY_PREFIX + event.data.summary, replaced },
          ...items.slice(to + 1),
        ]
        break
      }
      case 'compaction/undone': {
        const at = items.findIndex((i) => i.seq === event.data.checkpointSeq)
        items = [...items.slice(0, at), ...(items[at]?.replaced ?? []), ...items.slice(at + 1)]
        break
      }
      default:
        break
    }
  }
  return items.map(({ seq, text }) => ({ seq, text }))
}

function actualMessages(session: Session): { seq: number; text: string }[] {
  return session
    .deriveMessages()
    .filter((m) => m.role !== 'system')
    .map((m) => {
      switch (m.role) {
        case 'assistant':
          return {
            seq: m.seq,
            text: m.blocks.map((b) => (b.type === 'tool-call' ? b.callId : b.text)).join('|'),
          }
        default:
          return { seq: m.seq, text: m.content }
      }
    })
}

/** Every result answers one call proposed earlier in its step; no call is answered twice. */
function checkPairing(events: readonly LogEvent[]): void {
  let proposed = new Map<string, number>()
  for (const event of events) {
    if (event.type === 'step/start') proposed = new Map()
    if (event.type === 'assistant/message') {
      for (const block of event.data.blocks)
        if (block.type === 'tool-call') proposed.set(block.callId, 0)
    }
    if (event.type === 'tool/result') {
      const answers = proposed.get(event.data.callId)
      expect(answers, `seq ${event.seq} answers an unproposed call`).toBe(0)
      proposed.set(event.data.callId, 1)
    }
    if (event.type === 'step/end') expect([...proposed.values()].every((n) => n === 1)).toBe(true)
  }
}

type Command =
  | { kind: 'turn'; steps: number[] }
  | { kind: 'partial'; events: number }
  | { kind: 'crash' }
  | { kind: 'fork'; at: number }
  | { kind: 'compact' }
  | { kind: 'undo' }

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      steps: fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('partial' as const),
      events: fc.integer({ min: 1, max: 9 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'undo' as const }) },
)

/** The first `n` events of a turn with two calls, stopping anywhere (a crash or fork cuts it). */
function appendPartialTurn(session: Session, n: number, tag: string): void {
  const script: (() => unknown)[] = [
    () => session.append('turn/start', {}),
    () => session.append('step/start', {}),
    () => session.append('user/message', { content: `partial ${tag}` }),
    () =>
      session.append('request/header', {
        sections: [{ name: 'id', text: 'sys' }],
        tools: [],
        reason: 'initial',
      }),
    () =>
      session.append('request/start', {
        provider: 't',
        model: 'm',
        params: {},
        headerSeq: session.length - 1,
      }),
    () =>
      session.append('assistant/chunk', { deltas: [{ kind: 'text', text: `streamed ${tag}` }] }),
    () =>
      session.append('assistant/message', {
        blocks: [
          { type: 'tool-call', callId: `${tag}-a`, name: 'bash', args: '{}' },
          { type: 'tool-call', callId: `${tag}-b`, name: 'read', args: '{}' },
        ],
        finish: 'tool-calls',
      }),
    () => session.append('tool/call', { callId: `${tag}-a`, name: 'bash', args: {} }),
    () => session.append('tool/result', { callId: `${tag}-a`, ok: true, output: 'ran' }),
  ]
  for (const step of script.slice(0, n)) step()
}

describe('the log under random appends, crashes, forks and compactions', () => {
  it('keeps every invariant, and a fork derives its parent prefix plus its own events', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 10 }), (commands) => {
        const home = tempHome()
        let store: Store = home.open()
        let session = Session.create(store, { projectDir: '/p' })
        try {
          commands.forEach((cmd, i) => {
            if (session.isTurnOpen && cmd.kind !== 'crash' && cmd.kind !== 'fork') return
            switch (cmd.kind) {
              case 'turn':
                appendTurn(
                  session,
                  `turn ${i}`,
                  cmd.steps.map((calls, s) => ({
                    calls: Array.from({ length: calls }, (_, c) => `c${i}-${s}-${c}`),
                  })),
                )
                break
              case 'partial':
                appendPartialTurn(session, cmd.events, `p${i}`)
                break
              case 'crash':
                session.flushSync()
                store.close()
                store = home.open()
                session = Session.open(store, session.id)
                break
              case 'fork': {
                session.flushSync()
                const at = 1 + Math.floor(cmd.at * (session.length - 1))
                const parentPrefix = referenceMessages(session.slice(0, at))
                session.close()
                session = Session.open(store, forkSession(store, session.id, at))
                const own = referenceMessages(session.slice()).filter((m) => m.seq >= at)
                expect(actualMessages(session)).toEqual([...parentPrefix, ...own])
                break
              }
              case 'compact': {
                const nodes = session.surfaceNodes()
                const lastUser = nodes.findLastIndex(
                  (n) => n.kind === 'user' && session.event(n.seq)?.type === 'user/message',
                )
                const first = nodes[0]
                const end = nodes[lastUser - 1]
                if (!first || !end || lastUser < 2) break
                session.append('compaction/checkpoint', {
                  fromSeq: first.seq,
                  toSeq: end.seq,
                  summary: `summary ${i}`,
                  tokensBefore: 10,
                  tokensAfter: 1,
                })
                break
              }
              case 'undo': {
                const cp = session.surfaceNodes().findLast((n) => n.kind === 'checkpoint')
                if (cp) session.append('compaction/undone', { checkpointSeq: cp.seq })
                break
              }
            }
            const events = session.slice()
            expect(events.map((e) => e.seq)).toEqual(events.map((_, seq) => seq))
            expect(actualMessages(session)).toEqual(referenceMessages(events))
            checkPairing(events)
          })
          session.flushSync()
          const fresh = Session.open(home.open(), session.id, { mode: 'read' })
          expect(fresh.slice()).toEqual(session.slice())
          expect(fresh.deriveMessages()).toEqual(session.deriveMessages())
        } finally {
          session.close()
          void home.cleanup()
        }
      }),
      { numRuns: 40, seed: Number(process.env['BRIDLE_PROPERTY_SEED'] ?? 20261202) },
    )
  })
})
