/**
 * Real ways for a store's disk to refuse writes, for the store-failure tests. Each either works
 * on this machine or returns the reason it cannot, so a test skips saying why instead of
 * passing vacuously.
 *
 * Why these and not chmod: the tests run as root in CI, and root ignores file modes; a
 * read-only remount is refused (EBUSY) while a process has files on it open for writing, so a
 * store cannot be made read-only mid-session that way either. What does stop root mid-session
 * is the immutable attribute (`chattr +i`, on the database and its -wal, never the -shm, which
 * SQLite maps into memory: writing a mapped immutable page kills the process with SIGBUS).
 */
import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3')

const holders: ChildProcessWithoutNullStreams[] = []

/** Ends every lock holder still running (call from afterEach). */
export function killLockHolders(): void {
  for (const holder of holders.splice(0)) if (holder.exitCode === null) holder.kill('SIGKILL')
}

/**
 * Another program holding the database's write lock: a child process runs BEGIN IMMEDIATE on
 * its own connection and commits after `holdMs`. Resolves once the lock is held; `released`
 * resolves when the child has let go.
 */
export async function holdWriteLock(
  dbPath: string,
  holdMs: number,
): Promise<{ released: Promise<void> }> {
  const script = `
    const Database = require(process.argv[1])
    const db = new Database(process.argv[2], { fileMustExist: true })
    db.exec('BEGIN IMMEDIATE')
    process.stdout.write('held\\n')
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0) }, Number(process.argv[3]))`
  const child = spawn(process.execPath, ['-e', script, betterSqlite3, dbPath, String(holdMs)], {
    stdio: 'pipe',
  })
  holders.push(child)
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    let stderr = ''
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
    child.stdout.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}): ${stderr}`)))
  })
  return { released }
}

/** Mounts a tmpfs of `sizeKb` at `dir`, or says why it cannot. */
export function mountTmpfs(dir: string, sizeKb: number): string | undefined {
  mkdirSync(dir, { recursive: true })
  return run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir])
}

/** Binds `source` read-only at `target`, or says why it cannot. */
export function mountReadOnly(source: string, target: string): string | undefined {
  mkdirSync(target, { recursive: true })
  const why = run('mount', ['--bind', source, target])
  if (why !== undefined) return why
  const remount = run('mount', ['-o', 'remount,bind,ro', target])
  if (remount !== undefined) unmount(target)
  return remount
}

export function unmount(dir: string): void {
  run('umount', [dir])
}

/** Writes to a file in `dir` until the disk says ENOSPC. */
export function fillDisk(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w')
  const block = Buffer.alloc(4096)
  try {
    for (;;) writeSync(fd, block)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    closeSync(fd)
  }
}

/** Sets or clears the immutable attribute; tells why it cannot (no chattr, no support here). */
export function setImmutable(paths: readonly string[], isImmutable: boolean): string | undefined {
  return run('chattr', [isImmutable ? '+i' : '-i', ...paths])
}

/** Whether `chattr +i` works in `dir` (root, and a file system that supports it). */
export function immutableUnsupported(dir: string): string | undefined {
  const probe = join(dir, 'chattr-probe')
  writeFileSync(probe, '')
  const why = setImmutable([probe], true)
  if (why === undefined) setImmutable([probe], false)
  rmSync(probe, { force: true })
  return why
}

function run(command: string, args: readonly string[]): string | undefined {
  try {
    execFileSync(command, args, { stdio: 'pipe' })
    return undefined
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim()
    return `${command} ${args.join(' ')} failed: ${stderr || (error as Error).message}`
  }
}
