import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import type { ChatItem } from '../../renderer/src/features/chat/items'
import { buildItems } from '../../renderer/src/features/chat/projection'
import {
  changesFiles,
  doneSentence,
  eventWhere,
  planLines,
  planSummary,
} from '../../renderer/src/state/restore-words'
import { asEvent } from './event-fixture'

type RestoreItem = Extract<ChatItem, { kind: 'restore' }>

/** A log of turns that changed files, restores and undos; seq counts up. */
function log() {
  const events: EventDto[] = []
  let turn = 0
  const add = (type: string, data: Record<string, unknown>) => {
    const event = asEvent({ seq: events.length, type, v: 1, turn, step: 0, at: 0, data })
    events.push(event)
    return event.seq
  }
  return {
    events,
    turn() {
      turn++
      add('turn/start', {})
      return add('turn/end', { reason: 'completed' })
    },
    restore(toSeq: number, written: string[], removed: string[] = []) {
      return add('workspace/restored', {
        toSeq,
        written: written.map((path) => ({ path, hash: `h-${path}` })),
        removed,
        skipped: [],
        drifted: [],
        guard: written.map((path) => ({ path, hash: `g-${path}` })),
      })
    },
    undo(restoredSeq: number, cause: 'user' | 'failed' = 'user') {
      return add('workspace/restore-undone', {
        restoredSeq,
        written: [{ path: 'a.md', hash: 'g' }],
        removed: [],
        skipped: [],
        drifted: ['a.md'],
        cause,
      })
    },
  }
}

const restores = (events: EventDto[]) =>
  buildItems(events).filter((item): item is RestoreItem => item.kind === 'restore')

describe('restores in the chat', () => {
  it('shows a restore with what it did; only the last one, before any turn, can be undone', () => {
    const l = log()
    const end1 = l.turn()
    l.turn()
    const first = l.restore(end1, ['a.md'], ['b.md'])
    const second = l.restore(0, ['a.md'])
    const [older, newer] = restores(l.events)
    expect(older).toMatchObject({
      seq: first,
      action: 'restored',
      pointSeq: end1,
      written: ['a.md'],
      removed: ['b.md'],
      canUndo: false,
      isUndone: false,
    })
    // The row changed when the next restore came: its rev moved, so it is drawn again.
    expect(older?.rev).toBe(second)
    expect(newer).toMatchObject({ seq: second, canUndo: true })

    l.turn()
    expect(restores(l.events)[1]).toMatchObject({ seq: second, canUndo: false })
  })

  it('marks a restore undone and adds the undo, which names its cause and the overwritten files', () => {
    const l = log()
    const end1 = l.turn()
    const restored = l.restore(end1, ['a.md'])
    const undone = l.undo(restored)
    const [restore, undo] = restores(l.events)
    expect(restore).toMatchObject({ isUndone: true, canUndo: false, rev: undone })
    expect(undo).toMatchObject({
      action: 'undone',
      pointSeq: restored,
      cause: 'user',
      drifted: ['a.md'],
      canUndo: false,
    })
  })
})

describe('restore words', () => {
  const plan = {
    written: ['src/b.ts', 'a.md'],
    removed: ['new.txt'],
    skipped: [{ path: 'big.bin', reason: 'larger than 64 MiB' }],
    drifted: ['a.md'],
  }

  it('lists the files in path order with what happens to each, drift marked', () => {
    expect(planLines(plan)).toEqual([
      { path: 'a.md', verb: 'put back', isDrifted: true },
      { path: 'big.bin', verb: 'left alone', reason: 'larger than 64 MiB', isDrifted: false },
      { path: 'new.txt', verb: 'removed', isDrifted: false },
      { path: 'src/b.ts', verb: 'put back', isDrifted: false },
    ])
  })

  it('sums a plan up in words, and knows when nothing would change', () => {
    expect(planSummary(plan)).toBe('2 files put back, 1 removed, 1 left alone')
    expect(planSummary({ ...plan, written: [] })).toBe('1 file removed, 1 left alone')
    expect(planSummary({ written: [], removed: [], skipped: [], drifted: [] })).toBe(
      'no file changes',
    )
    expect(changesFiles({ ...plan, written: [], removed: [] })).toBe(false)
    expect(changesFiles(plan)).toBe(true)
  })

  it('says what a restore and an undo did, and the changes they overwrote', () => {
    const outcome = { status: 'restored' as const, seq: 9, ...plan }
    expect(doneSentence('restore', outcome)).toBe(
      'Files restored: 2 files put back, 1 removed, 1 left alone. Overwrote 1 change made outside Bridle.',
    )
    expect(doneSentence('undo', { ...outcome, drifted: [] })).toBe(
      'Restore undone: 2 files put back, 1 removed, 1 left alone.',
    )
  })

  it('names the point of an event in words, and the type itself when it has none', () => {
    expect(eventWhere({ seq: 12, type: 'turn/end', turn: 2 })).toBe(
      'right after event 12 (the end of turn 2)',
    )
    expect(eventWhere({ seq: 3, type: 'step/start', turn: 1 })).toBe(
      'right after event 3 (step/start)',
    )
  })
})
