import { describe, expect, it } from 'vitest'
import type { EventDto, SessionSummary } from '../../protocol/contract'
import {
  ancestorsOf,
  buildSessionTree,
  childrenLabel,
  forkCount,
  hiddenText,
  forkPointText,
  formatAge,
  neighbourOf,
  sessionTitle,
  treeMove,
  upsertSessions,
  visibleSessions,
} from '../../renderer/src/state/session-tree'
import { titleFrom } from '../../renderer/src/state/shell-actions'

const session = (id: string, over: Partial<SessionSummary> = {}): SessionSummary => ({
  id,
  parentId: null,
  forkSeq: null,
  title: id,
  projectDir: '/p',
  model: null,
  createdAt: 1,
  updatedAt: 1,
  messageCount: 0,
  eventCount: 0,
  deletedAt: null,
  isRunning: false,
  spawnedBy: null,
  ...over,
})

describe('upsertSessions', () => {
  it('merges by id, newest activity first, and leaves out the trash and other projects', () => {
    const list = upsertSessions(
      [],
      [session('a', { updatedAt: 1 }), session('b', { updatedAt: 2 })],
      '/p',
    )
    expect(list.map((s) => s.id)).toEqual(['b', 'a'])
    const updated = upsertSessions(
      list,
      [
        session('a', { updatedAt: 3, title: 'renamed' }),
        session('b', { deletedAt: 5 }),
        session('c', { projectDir: '/elsewhere' }),
      ],
      '/p',
    )
    expect(updated.map((s) => [s.id, s.title])).toEqual([['a', 'renamed']])
  })
})

describe('buildSessionTree', () => {
  it('nests forks under their parents, children oldest first, roots by latest activity', () => {
    const tree = buildSessionTree([
      session('root', { updatedAt: 1 }),
      session('fork2', { parentId: 'root', forkSeq: 9, createdAt: 5, updatedAt: 50 }),
      session('fork1', { parentId: 'root', forkSeq: 4, createdAt: 3 }),
      session('grandchild', { parentId: 'fork1', forkSeq: 6 }),
      session('other', { updatedAt: 10 }),
    ])
    expect(tree.map((n) => n.session.id)).toEqual(['root', 'other'])
    const root = tree[0]
    expect(root?.children.map((n) => n.session.id)).toEqual(['fork1', 'fork2'])
    expect(root?.children[0]?.children.map((n) => n.session.id)).toEqual(['grandchild'])
  })

  it('shows a fork whose parent is not listed as a root', () => {
    const tree = buildSessionTree([session('orphan', { parentId: 'gone', forkSeq: 2 })])
    expect(tree.map((n) => n.session.id)).toEqual(['orphan'])
  })

  it('neither hangs on nor hides a cycle', () => {
    const tree = buildSessionTree([
      session('a', { parentId: 'b' }),
      session('b', { parentId: 'a' }),
    ])
    expect(tree.flatMap((n) => [n.session.id, ...n.children.map((c) => c.session.id)])).toEqual([
      'a',
      'b',
    ])
    expect(
      ancestorsOf([session('a', { parentId: 'b' }), session('b', { parentId: 'a' })], 'a'),
    ).toEqual(['b', 'a'])
  })
})

describe('subagents in the tree', () => {
  const spawned = (sessionId: string, callId = 'c1') => ({ spawnedBy: { sessionId, callId } })
  const sessions = [
    session('parent', { updatedAt: 1 }),
    session('fork', { parentId: 'parent', forkSeq: 4, createdAt: 2 }),
    session('child', { ...spawned('parent'), createdAt: 3, updatedAt: 90 }),
    // Seeded with the parent's history (fork mode): still the subagent of `parent`'s call.
    session('seeded', { ...spawned('fork', 'c2'), parentId: 'parent', forkSeq: 7, createdAt: 4 }),
    session('orphan', { ...spawned('gone'), updatedAt: 5 }),
    session('plain', { updatedAt: 6 }),
  ]
  const tree = buildSessionTree(sessions)

  it('hangs a subagent under the session that spawned it, beside the forks, oldest first', () => {
    // `parent` is first: its child's activity (90) is the latest.
    expect(tree.map((n) => n.session.id)).toEqual(['parent', 'plain', 'orphan'])
    const parent = tree[0]
    expect(parent?.children.map((n) => n.session.id)).toEqual(['fork', 'child'])
    // A subagent's spawner wins over its fork parent.
    expect(parent?.children[0]?.children.map((n) => n.session.id)).toEqual(['seeded'])
    expect(ancestorsOf(sessions, 'seeded')).toEqual(['fork', 'parent'])
    expect(ancestorsOf(sessions, 'child')).toEqual(['parent'])
  })

  it('says what a folded row hides and names the group by what it holds', () => {
    const parent = tree[0]
    expect(parent && hiddenText(parent)).toBe('1 fork, 2 subagents')
    expect(parent && forkCount(parent)).toBe(3)
    const fork = parent?.children[0]
    expect(fork && hiddenText(fork)).toBe('1 subagent')
    expect(fork && childrenLabel(fork, 'F')).toBe('Subagents of F')
    expect(parent && childrenLabel(parent, 'P')).toBe('Forks and subagents of P')
    const forksOnly = buildSessionTree([session('a'), session('b', { parentId: 'a', forkSeq: 1 })])
    expect(forksOnly[0] && hiddenText(forksOnly[0])).toBe('1 fork')
    expect(forksOnly[0] && childrenLabel(forksOnly[0], 'A')).toBe('Forks of A')
  })
})

describe('words', () => {
  it('names untitled sessions and says ages in words', () => {
    expect(sessionTitle({ title: null, createdAt: 0 })).toBe('Untitled session')
    expect(sessionTitle({ title: '  ', createdAt: 0 })).toBe('Untitled session')
    expect(formatAge(0, 30_000)).toBe('just now')
    expect(formatAge(0, 5 * 60_000)).toBe('5 min ago')
    expect(formatAge(0, 3 * 3_600_000)).toBe('3 h ago')
    expect(formatAge(0, 2 * 86_400_000)).toBe('2 d ago')
  })

  it('titles a session from the first line of its first message', () => {
    expect(titleFrom('  Fix the build\nand more')).toBe('Fix the build')
    const long = titleFrom('word '.repeat(30))
    expect(long.length).toBeLessThanOrEqual(61)
    expect(long.endsWith('…')).toBe(true)
  })
})

describe('treeMove (the keyboard in the session tree)', () => {
  // a (newest) with forks a1 (which has its own fork a1x) and a2; then b.
  const tree = buildSessionTree([
    session('a', { updatedAt: 10 }),
    session('a1', { parentId: 'a', forkSeq: 3, updatedAt: 9 }),
    session('a1x', { parentId: 'a1', forkSeq: 5, updatedAt: 8 }),
    session('a2', { parentId: 'a', forkSeq: 4, updatedAt: 7 }),
    session('b', { updatedAt: 1 }),
  ])
  const none = new Set<string>()
  const ids = (folded: ReadonlySet<string>) =>
    visibleSessions(tree, folded).map((row) => row.node.session.id)

  it('Up and Down follow what is on screen; Home and End go to its ends', () => {
    expect(ids(none)).toEqual(['a', 'a1', 'a1x', 'a2', 'b'])
    expect(treeMove(tree, none, 'a1x', 'ArrowDown')).toEqual({ kind: 'focus', id: 'a2' })
    expect(treeMove(tree, none, 'a2', 'ArrowUp')).toEqual({ kind: 'focus', id: 'a1x' })
    expect(treeMove(tree, none, 'a1', 'End')).toEqual({ kind: 'focus', id: 'b' })
    expect(treeMove(tree, none, 'b', 'Home')).toEqual({ kind: 'focus', id: 'a' })
    expect(treeMove(tree, none, 'b', 'ArrowDown')).toBeUndefined()
    expect(treeMove(tree, none, 'a', 'ArrowUp')).toBeUndefined()
    // Folded forks are skipped.
    expect(ids(new Set(['a1']))).toEqual(['a', 'a1', 'a2', 'b'])
    expect(treeMove(tree, new Set(['a1']), 'a1', 'ArrowDown')).toEqual({ kind: 'focus', id: 'a2' })
  })

  it('Left folds, then goes to the parent; Right unfolds, then goes into the forks', () => {
    expect(treeMove(tree, none, 'a1', 'ArrowLeft')).toEqual({
      kind: 'fold',
      id: 'a1',
      isFolded: true,
    })
    expect(treeMove(tree, new Set(['a1']), 'a1', 'ArrowLeft')).toEqual({ kind: 'focus', id: 'a' })
    expect(treeMove(tree, none, 'a1x', 'ArrowLeft')).toEqual({ kind: 'focus', id: 'a1' })
    expect(treeMove(tree, none, 'b', 'ArrowLeft')).toBeUndefined()
    expect(treeMove(tree, new Set(['a']), 'a', 'ArrowRight')).toEqual({
      kind: 'fold',
      id: 'a',
      isFolded: false,
    })
    expect(treeMove(tree, none, 'a', 'ArrowRight')).toEqual({ kind: 'focus', id: 'a1' })
    expect(treeMove(tree, none, 'b', 'ArrowRight')).toBeUndefined()
    // A focused session that is gone (deleted meanwhile): the first one.
    expect(treeMove(tree, none, 'gone', 'ArrowDown')).toEqual({ kind: 'focus', id: 'a' })
  })
})

describe('what the tree shows about forks', () => {
  const sessions = [
    session('a', { updatedAt: 10 }),
    session('a1', { parentId: 'a', forkSeq: 3, updatedAt: 9 }),
    session('a1x', { parentId: 'a1', forkSeq: 5, updatedAt: 8 }),
    session('a2', { parentId: 'a', forkSeq: 4, updatedAt: 7 }),
    session('b', { updatedAt: 1 }),
  ]
  const tree = buildSessionTree(sessions)

  it('counts the forks a folded session hides, at any depth', () => {
    expect(tree.map((node) => forkCount(node))).toEqual([3, 0])
    expect(tree[0]?.children.map((node) => forkCount(node))).toEqual([1, 0])
  })

  it('opens the next session down when the open one is deleted, skipping its own forks', () => {
    expect(neighbourOf(sessions, 'a1x')).toBe('a2')
    expect(neighbourOf(sessions, 'a1')).toBe('a2')
    expect(neighbourOf(sessions, 'a')).toBe('b')
    // The last one: the one above it.
    expect(neighbourOf(sessions, 'b')).toBe('a2')
    expect(neighbourOf([session('only')], 'only')).toBeUndefined()
    expect(neighbourOf(sessions, 'gone')).toBeUndefined()
  })

  it('names the fork point by the last message before it, the user or the answer', () => {
    const at = { at: 1, turn: 0, step: 0, v: 1 }
    const user = (seq: number, content: string, kind = 'input') =>
      ({ ...at, seq, type: 'user/message', data: { content, kind } }) as unknown as EventDto
    const answer = (seq: number, text: string) =>
      ({
        ...at,
        seq,
        type: 'assistant/message',
        data: {
          blocks: [
            { type: 'reasoning', text: 'hmm' },
            { type: 'text', text },
          ],
          finish: 'stop',
        },
      }) as unknown as EventDto
    expect(forkPointText([user(0, 'Fix the\n build'), answer(1, 'Done.')])).toBe('Answer: Done.')
    expect(forkPointText([user(0, 'Fix the\n build'), user(1, 'git status', 'context')])).toBe(
      'You: Fix the build',
    )
    expect(forkPointText([])).toBeUndefined()
    const long = forkPointText([user(0, 'x'.repeat(500))]) ?? ''
    expect(long.length).toBeLessThan(200)
    expect(long.endsWith('…')).toBe(true)
  })
})
