import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const HASH = /^[0-9a-f]{64}$/

/** The snapshot store's folder under the data folder. */
export const SNAPSHOTS_DIR = 'snapshots'

export class SnapshotError extends Error {
  constructor(
    readonly code: 'SNAPSHOT_BAD_HASH' | 'SNAPSHOT_MISSING',
    message: string,
  ) {
    super(message)
    this.name = 'SnapshotError'
  }
}

/** The sha256 of `content` as 64 lowercase hex digits: the name a blob is stored under. */
export function hashContent(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex')
}

/**
 * Content-addressed blobs under `<dir>/<first two hex digits>/<sha256>`, owner-only (folders
 * 0700, files 0600) because they hold copies of the user's files.
 *
 * Synchronous on purpose: tools call `put` right before they write, and the prior content must be
 * safe on disk before the write can begin. Callers may rely on: `put` returns only once the blob is
 * complete under its final name (written to a temporary file, then renamed, so a crash leaves
 * either no blob or a whole one, never a torn one); a blob already present is never rewritten;
 * identical content is stored once.
 */
export class SnapshotStore {
  constructor(readonly dir: string) {}

  /** Stores `content` (if not already stored) and returns its hash. */
  put(content: Buffer): string {
    const hash = hashContent(content)
    const path = this.pathOf(hash)
    if (existsSync(path)) return hash
    const folder = join(this.dir, hash.slice(0, 2))
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    try {
      writeFileSync(temp, content, { mode: 0o600, flag: 'wx' })
      renameSync(temp, path)
    } catch (error) {
      rmSync(temp, { force: true })
      throw error
    }
    return hash
  }

  /** The content stored under `hash`; throws `SNAPSHOT_MISSING` if there is none. */
  get(hash: string): Buffer {
    const path = this.pathOf(hash)
    try {
      return readFileSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new SnapshotError('SNAPSHOT_MISSING', `no snapshot ${hash} in ${this.dir}`)
      }
      throw error
    }
  }

  has(hash: string): boolean {
    return existsSync(this.pathOf(hash))
  }

  private pathOf(hash: string): string {
    // The hash becomes a path: refuse anything that is not one, so `../x` cannot escape `dir`.
    if (!HASH.test(hash)) {
      throw new SnapshotError('SNAPSHOT_BAD_HASH', `not a sha256 hex digest: ${hash}`)
    }
    return join(this.dir, hash.slice(0, 2), hash)
  }
}
