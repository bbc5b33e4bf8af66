/**
 * What the agent last saw of each file, so `write` and `edit` never silently overwrite a change
 * made since by someone else (the user in their editor, a formatter, a command the agent ran).
 *
 * Invariants:
 * - Keys are real absolute paths (symbolic links followed), as the file tools resolve them, so a
 *   file read through a link and written through its target is one entry.
 * - A tool calls `saw` exactly when its ok result's metadata carries `path` and `sha256`, so the
 *   ledger a live session builds and the one `ledgerFromEvents` rebuilds from its log agree.
 * - A hash is of the file's whole content on disk, streamed: a huge file is never held in memory.
 *
 * The race left over: `write` and `edit` check the file before any effect, then again right
 * before renaming their temp file over it, where an unchanged stamp (one `stat`) stands for an
 * unchanged hash. A change landing between that last `stat` and the rename (microseconds) is
 * overwritten, as is one that keeps size and times on a file system with whole-second times.
 * Closing it fully would need a lock every editor honours, which no file system offers.
 */
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import type { BigIntStats } from 'node:fs'
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { openFileInside } from '../workspace/confined.js'
import { ToolError } from './types.js'
import type { FileLedger } from './types.js'

/** Chunk size when hashing a file: big enough for disk speed, small enough to hold often. */
const HASH_CHUNK_BYTES = 1024 * 1024
/** Attempts at reading a file that keeps changing underneath before settling for what was read. */
const MAX_STABLE_ATTEMPTS = 3

/** A ledger held in memory for one session (absolute path -> sha256 hex, or null for absent). */
export class FileLedgerMap implements FileLedger {
  private readonly hashes = new Map<string, string | null>()

  seen(absolutePath: string): string | null | undefined {
    return this.hashes.get(absolutePath)
  }

  saw(absolutePath: string, sha256: string | null): void {
    this.hashes.set(absolutePath, sha256)
  }
}

/**
 * Rebuilds a session's ledger from its log (in log order): every ok `tool/result` whose metadata
 * has a project-relative `path` and a `sha256` (string or null). `projectDir` is made real like
 * the tools' own, so keys match theirs; a project folder that no longer exists is used as given.
 * Never throws: an event of another shape is skipped.
 */
export function ledgerFromEvents(
  events: readonly { type: string; data: unknown }[],
  projectDir: string,
): FileLedgerMap {
  const root = realOrSelf(projectDir)
  const ledger = new FileLedgerMap()
  for (const { type, data } of events) {
    if (type !== 'tool/result' || !isRecord(data) || data.ok !== true) continue
    const { metadata } = data
    if (!isRecord(metadata) || typeof metadata.path !== 'string') continue
    const { sha256 } = metadata
    if (typeof sha256 !== 'string' && sha256 !== null) continue
    ledger.saw(resolve(root, metadata.path), sha256)
  }
  return ledger
}

/** The sha256 (hex) of text as the tools write it (UTF-8), or of bytes. */
export const sha256Of = (data: string | Uint8Array): string =>
  createHash('sha256').update(data).digest('hex')

/**
 * The sha256 (hex) of a file's whole content, streamed; `null` when it does not exist. The file
 * is opened first and read only if what was opened lies inside `root` (PATH_OUTSIDE_PROJECT
 * otherwise), so a link swapped in on the way never has its target read.
 */
export async function sha256File(
  root: string,
  path: string,
  signal?: AbortSignal,
): Promise<string | null> {
  const hash = createHash('sha256')
  let handle: Awaited<ReturnType<typeof openFileInside>>['handle']
  try {
    ;({ handle } = await openFileInside(root, path, path))
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
  try {
    const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES)
    for (let position = 0; ;) {
      signal?.throwIfAborted()
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
      if (bytesRead === 0) break
      hash.update(buffer.subarray(0, bytesRead))
      position += bytesRead
    }
  } finally {
    await handle.close()
  }
  return hash.digest('hex')
}

/**
 * What cheaply tells whether a file may have changed: device, inode, size, modification and
 * change times in nanoseconds (the change time cannot be set back by `touch`), or `missing`.
 * The same stamp with different content is possible only on file systems with whole-second times
 * (FAT, HFS+) for a same-size change within that second.
 */
export async function fileStamp(path: string): Promise<string> {
  try {
    return stampOf(await stat(path, { bigint: true }))
  } catch (error) {
    if (isMissing(error)) return 'missing'
    throw error
  }
}

/** The stamp of these stats (taken with `bigint: true`), as `fileStamp` gives it. */
export const stampOf = (s: BigIntStats): string =>
  `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`

/**
 * Runs `read` between two stamps (`stampNow`: of a path, or of an open handle) and retries while they differ, so what was read is one
 * version of the file. `stamp` is undefined when the file kept changing on every attempt (a log
 * being appended to): the value is then the last attempt's, which may mix versions. `firstStamp`,
 * when the caller has just taken one, stands for the first attempt's stamp before.
 */
export async function readStable<T>(
  stampNow: () => Promise<string>,
  read: () => Promise<T>,
  firstStamp?: string,
): Promise<{ value: T; stamp: string | undefined }> {
  for (let attempt = 1; ; attempt++) {
    const before = attempt === 1 && firstStamp !== undefined ? firstStamp : await stampNow()
    const value = await read()
    if ((await stampNow()) === before) return { value, stamp: before }
    if (attempt >= MAX_STABLE_ATTEMPTS) return { value, stamp: undefined }
  }
}

/** A file's content hash (null: absent) and the stamp it was taken under. */
export interface FileVersion {
  readonly sha256: string | null
  readonly stamp: string | undefined
}

/**
 * The file's version now. When its stamp still equals `previous.stamp`, `previous` is returned
 * without reading the file again, so a check right before a rename costs one `stat`. The
 * content is hashed only through a descriptor verified inside `root` (see `sha256File`).
 */
export async function fileVersion(
  root: string,
  path: string,
  signal?: AbortSignal,
  previous?: FileVersion,
): Promise<FileVersion> {
  if (previous?.stamp !== undefined && (await fileStamp(path)) === previous.stamp) return previous
  const stampNow = () => fileStamp(path)
  const { value, stamp } = await readStable(stampNow, () => sha256File(root, path, signal))
  return { sha256: value, stamp }
}

/**
 * Refuses a change based on an outdated view of the file: `current` is its hash now (null:
 * absent), `seen` what the ledger holds. A write needs the agent to have seen an existing file
 * (READ_BEFORE_WRITE); an edit does not, since its oldText must match the file anyway. Either
 * refuses a file that differs from what the agent last saw (STALE_FILE). A file absent now is
 * fine for a write even when the agent saw it with content: nothing on disk can be lost, and the
 * write says it recreated the file.
 */
export function assertUnchanged(
  seen: string | null | undefined,
  current: string | null,
  shown: string,
  purpose: 'write' | 'edit',
): void {
  if (current === null) return
  if (seen === undefined) {
    if (purpose === 'edit') return
    throw new ToolError(
      'READ_BEFORE_WRITE',
      `${shown} exists and you have not read it in this session; read it first, then write.`,
    )
  }
  if (seen !== current) throw staleFile(shown)
}

/** STALE_FILE: the file changed on disk since the agent last read or wrote it. */
export const staleFile = (shown: string): ToolError =>
  new ToolError(
    'STALE_FILE',
    `${shown} changed on disk since you last read or wrote it (probably the user edited it, or a command changed it); nothing was written. Read it again and redo your change on the new content.`,
  )

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

const isMissing = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // A project folder moved or deleted since: its recorded paths still resolve under it.
    return resolve(path)
  }
}
