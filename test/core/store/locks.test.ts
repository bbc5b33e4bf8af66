import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { StoreError, openStore } from '../../../main/core/store/index.js'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore, track } from './helpers.js'

const TSX = join(process.cwd(), 'node_modules/tsx/dist/cli.mjs')
const HOLD_LOCK = join(process.cwd(), 'test/fixtures/store/hold-lock.ts')

const children: ChildProcess[] = []
const holders: number[] = []
afterEach(() => {
  // The holder first: killing only tsx's cli would leave its child (and the lock) running.
  for (const pid of holders.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone (the test killed it).
    }
  }
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

function storeWithSession(id = 's', clock?: () => number): SqliteStore {
  const store = freshStore(clock)
  store.createSession({
    id,
    parentId: null,
    forkSeq: null,
    projectDir: '/p',
    title: null,
    createdAt: 1,
  })
  return store
}

/**
 * Starts hold-lock.ts in a real child process and resolves once it printed "locked <pid>", with
 * the pid of the process that holds the lock (tsx's cli runs the script in a child of its own).
 */
async function holdLockInChild(
  path: string,
  sessionId: string,
  parent: 'reaps' | 'never-reaps' = 'reaps',
): Promise<{ child: ChildProcess; holder: number }> {
  // never-reaps: sh starts the holder in the background and becomes `sleep`, which never waits
  // for a child, so a killed holder stays a zombie until the test ends the sleep.
  const child =
    parent === 'reaps'
      ? spawn(process.execPath, [TSX, HOLD_LOCK, path, sessionId], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(
          '/bin/sh',
          [
            '-c',
            '"$0" --import tsx "$1" "$2" "$3" & exec sleep 300',
            process.execPath,
            HOLD_LOCK,
            path,
            sessionId,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        )
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const holder = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /locked (\d+)\n/.exec(stdout)
      if (match?.[1] === undefined) return
      holders.push(Number(match[1]))
      resolve(Number(match[1]))
    })
    child.on('exit', (code) =>
      reject(new Error(`hold-lock exited with ${String(code)} before locking: ${stderr}`)),
    )
  })
  return { child, holder }
}

/** The state letter of /proc/<pid>/stat (Z for a zombie), or undefined when the pid is free. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return undefined
  }
}

/** Rewrites the lock row as another opener would find it, through a connection of its own. */
function editLockRow(path: string, sessionId: string, set: string, value: number | string): void {
  const db = new Database(path)
  try {
    db.prepare(`UPDATE session_locks SET ${set} = ? WHERE session_id = ?`).run(value, sessionId)
  } finally {
    db.close()
  }
}

const noProc = !existsSync('/proc/self/stat')

function lockError(body: () => unknown): StoreError {
  try {
    body()
  } catch (error) {
    if (error instanceof StoreError) return error
    throw error
  }
  throw new Error('expected SESSION_LOCKED')
}

describe('lockSession', () => {
  it('is refused while another process holds it, and taken over once that process is killed', async () => {
    const store = storeWithSession()
    const { child, holder } = await holdLockInChild(store.path, 's')
    const error = lockError(() => store.lockSession('s'))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.message).toContain(`process ${String(holder)}`)
    expect(error.message).toMatch(/since \d{4}-\d\d-\d\dT/)

    // A crash: no release, no close. tsx's cli exits once its child is gone and reaped, so after
    // 'exit' kill(holder, 0) reports ESRCH rather than finding a zombie.
    process.kill(holder, 'SIGKILL')
    await once(child, 'exit')
    const release = store.lockSession('s')
    expect(typeof release).toBe('function')
    // Now ours: a second Store on the same file is refused.
    const other = track(openStore(store.path))
    expect(codeOf(() => other.lockSession('s'))).toBe('SESSION_LOCKED')
  }, 30_000)

  it.skipIf(noProc)(
    'a holder killed but not reaped (a zombie) is gone: the next lock is taken at once',
    async () => {
      if (noProc) console.warn('skipped: no /proc to tell a zombie by')
      const store = storeWithSession()
      const { holder } = await holdLockInChild(store.path, 's', 'never-reaps')
      expect(codeOf(() => store.lockSession('s'))).toBe('SESSION_LOCKED')

      process.kill(holder, 'SIGKILL')
      const deadline = Date.now() + 5000
      while (procState(holder) !== 'Z' && Date.now() < deadline) await delay(10)
      expect(procState(holder)).toBe('Z')
      // What used to keep the lock held: the zombie still answers kill(pid, 0).
      expect(() => process.kill(holder, 0)).not.toThrow()

      const started = performance.now()
      const release = store.lockSession('s')
      expect(performance.now() - started).toBeLessThan(500)
      expect(typeof release).toBe('function')
      expect(procState(holder)).toBe('Z')
    },
    30_000,
  )

  it.skipIf(noProc)(
    'a live pid that started at another time, or in another boot, than the holder is not the holder',
    async () => {
      if (noProc) console.warn('skipped: no /proc to read start times from')
      const store = storeWithSession()
      const { holder } = await holdLockInChild(store.path, 's')
      const other = track(openStore(store.path))
      expect(codeOf(() => other.lockSession('s'))).toBe('SESSION_LOCKED')

      // The pid reused: the row names a live pid, but a process that started a tick earlier.
      const ticks = Number(
        readFileSync(`/proc/${holder}/stat`, 'utf8').split(') ')[1]?.split(' ')[19],
      )
      editLockRow(store.path, 's', 'start_ticks', ticks - 1)
      other.lockSession('s')
      expect(procState(holder)).not.toBe('Z')
      expect(codeOf(() => store.lockSession('s'))).toBe('SESSION_LOCKED')

      // A row written before the machine restarted: the pid and start time match, the boot not.
      editLockRow(store.path, 's', 'pid', holder)
      editLockRow(store.path, 's', 'start_ticks', ticks)
      expect(codeOf(() => store.lockSession('s'))).toBe('SESSION_LOCKED')
      editLockRow(store.path, 's', 'boot_id', '00000000-0000-0000-0000-000000000000')
      store.lockSession('s')
    },
    30_000,
  )

  it('refuses a second Store of the same process, and the same Store twice', () => {
    const store = storeWithSession('s', () => Date.UTC(2025, 0, 2, 3, 4, 5))
    const release = store.lockSession('s')
    const other = track(openStore(store.path))
    const error = lockError(() => other.lockSession('s'))
    expect(error.code).toBe('SESSION_LOCKED')
    expect(error.message).toContain(`process ${String(process.pid)}`)
    expect(error.message).toContain('2025-01-02T03:04:05.000Z')
    expect(codeOf(() => store.lockSession('s'))).toBe('SESSION_LOCKED')

    release()
    const releaseOther = other.lockSession('s')
    // A stale release function must not free the new holder's lock.
    release()
    expect(codeOf(() => store.lockSession('s'))).toBe('SESSION_LOCKED')
    releaseOther()
    store.lockSession('s')
  })

  it('close() releases every lock the store holds', () => {
    const store = storeWithSession('a')
    store.createSession({
      id: 'b',
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: null,
      createdAt: 1,
    })
    store.lockSession('a')
    store.lockSession('b')
    store.close()
    const next = track(openStore(store.path))
    next.lockSession('a')
    next.lockSession('b')
  })

  it('refuses to lock a session that does not exist', () => {
    const store = storeWithSession()
    expect(codeOf(() => store.lockSession('missing'))).toBe('NO_SUCH_SESSION')
  })
})
