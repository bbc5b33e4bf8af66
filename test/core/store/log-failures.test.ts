/**
 * How the log's Session meets a store that refuses writes (issue 15, item 8): a held lock is
 * retried without blocking and said once; a failure reaches the caller once, as the store's
 * sentence, at the next append or flush.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LogError, Session } from '../../../main/core/log/index.js'
import { openStore } from '../../../main/core/store/index.js'
import type { StoreError } from '../../../main/core/store/index.js'
import { holdWriteLock, killLockHolders } from './disk-faults.js'
import { tempFolder, track } from './helpers.js'

afterEach(() => {
  killLockHolders()
  vi.restoreAllMocks()
})

function storeAt(folder: string, opts: Parameters<typeof openStore>[1] = {}) {
  return track(openStore(join(folder, 'bridle.db'), opts))
}

async function rejectionOf(promise: Promise<unknown>): Promise<LogError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof LogError)) throw new Error(`expected a LogError, got ${String(error)}`)
  return error
}

describe('a write lock held by another program', () => {
  it('is waited out: the flush retries without blocking, and says "retrying" once (one line, no stack)', async () => {
    const folder = tempFolder()
    const store = storeAt(folder)
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const session = Session.create(store, { projectDir: '/p' })
    const { released } = await holdWriteLock(store.path, 1500)
    let ticksWhileWaiting = 0
    let isFlushed = false
    const ticking = setInterval(() => {
      if (!isFlushed) ticksWhileWaiting++
    }, 50)
    session.append('session/title', { title: 'waited' })
    await session.flush()
    isFlushed = true
    clearInterval(ticking)
    await released
    // The event loop kept running while the lock was held: a blocking wait would let no timer
    // fire before the flush ended. (Not a count per second: a loaded machine runs timers late.)
    expect(ticksWhileWaiting).toBeGreaterThanOrEqual(2)
    expect(said.mock.calls).toEqual([
      [`bridle: ${store.path} is in use by another program; retrying`],
    ])
    const other = storeAt(folder)
    expect(other.readEvents(session.id).at(-1)?.type).toBe('session/title')
    session.close()
  })

  it('is given up after DEFAULT_BUSY_RETRY_MS with one sentence; the session then works again', async () => {
    const store = storeAt(tempFolder())
    const report = vi.fn()
    const session = Session.create(store, { projectDir: '/p', report })
    const length = session.length
    await holdWriteLock(store.path, 60_000)
    const startedAt = performance.now()
    session.append('session/title', { title: 'lost' })
    const failure = await rejectionOf(session.flush())
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(10_000)
    expect(failure.code).toBe('WRITE_FAILED')
    expect((failure.cause as StoreError).code).toBe('STORE_BUSY')
    expect(failure.message).toBe(
      `${store.path} is in use by another program, which kept it locked for more than 10 s; close that program, then try again`,
    )
    expect(session.length).toBe(length)
    expect(report).toHaveBeenCalledTimes(1)
    expect((report.mock.calls[0]?.[0] as StoreError).message).toContain('retrying')

    killLockHolders()
    await new Promise((resolve) => setTimeout(resolve, 200))
    session.append('session/title', { title: 'kept' })
    await session.flush()
    expect(session.length).toBe(length + 1)
    expect(report).toHaveBeenCalledTimes(1)
    session.close()
  }, 40_000)
})

describe('a commit the disk refuses', () => {
  it('in the background: the next append throws it, once, as the store sentence; nothing was built on it', async () => {
    const folder = tempFolder()
    const store = storeAt(folder, { fault: { kind: 'full', atEventType: 'inbox/queued' } })
    const report = vi.fn()
    const session = Session.create(store, { projectDir: '/p', report })
    const length = session.length
    session.append('inbox/queued', { requestId: 'r1', message: 'hi', wake: true })
    await new Promise((resolve) => setImmediate(resolve))

    let thrown: unknown
    try {
      session.append('turn/start', {})
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(LogError)
    expect((thrown as LogError).code).toBe('WRITE_FAILED')
    expect((thrown as LogError).message).toBe(
      `the disk holding ${folder} is full; free some space on it, then try again`,
    )
    expect(((thrown as LogError).cause as StoreError).code).toBe('STORE_FULL')
    expect(session.length).toBe(length)
    expect(session.hasRequest('r1')).toBe(false)
    expect(report).not.toHaveBeenCalled()

    // Told once: the session goes on from what is on disk (and this disk stays full).
    session.append('turn/start', {})
    expect((await rejectionOf(session.flush())).message).toContain('is full')
    expect(report).not.toHaveBeenCalled()
  })

  it('read-only at a flush: rejects with the sentence and leaves memory as it was', async () => {
    const folder = tempFolder()
    const store = storeAt(folder, { fault: { kind: 'readonly', atEventType: 'turn/start' } })
    const session = Session.create(store, { projectDir: '/p', report: vi.fn() })
    const length = session.length
    session.append('turn/start', {})
    const failure = await rejectionOf(session.flush())
    expect(failure.message).toBe(
      `${store.path} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
    expect(session.isTurnOpen).toBe(false)
    expect(session.length).toBe(length)
    expect(() => session.close()).not.toThrow()
  })
})
