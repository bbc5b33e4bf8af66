/**
 * API keys per endpoint id, kept out of config.json. With a SecretBox (Electron's safeStorage in
 * the app) a key is stored sealed; without one (serve, the CLI) it is stored as it is. Either way
 * it lives in `<home>/credentials.json`, created owner-only (0600) and replaced atomically, and a
 * file that others could read, or that someone else owns, is refused rather than used.
 *
 * Each key remembers the origin of the endpoint it was set for and is only handed out for that
 * origin: pointing an endpoint at another server does not send the old server's key there.
 * Values leave this module only through `reveal`, for the request that needs them; no error
 * message here contains one.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from '../files.js'
import { HostError } from '../host.js'
import type { SecretBox } from '../services.js'

export const CREDENTIALS_FILE = 'credentials.json'

const Entry = z.union([
  z.object({ origin: z.string(), sealed: z.string().min(1) }).strict(),
  z.object({ origin: z.string(), plain: z.string().min(1) }).strict(),
])
type Entry = z.infer<typeof Entry>

const CredentialsFile = z
  .object({ version: z.literal(1), keys: z.record(z.string(), Entry) })
  .strict()

/** By endpoint id; a Map, so that an id like `__proto__` is just a key. */
type Keys = Map<string, Entry>

/** What `reveal` finds: the key, nothing, or a key this process cannot open (and why). */
export type RevealedKey =
  | { readonly state: 'absent' }
  | { readonly state: 'ready'; readonly value: string; readonly origin: string }
  | { readonly state: 'unreadable'; readonly origin: string; readonly reason: string }

export class CredentialStore {
  readonly path: string

  constructor(
    home: string,
    private readonly box?: SecretBox,
  ) {
    this.path = join(home, CREDENTIALS_FILE)
  }

  /** The origin a stored key belongs to, without opening it (no keychain prompt). */
  originOf(endpointId: string): string | undefined {
    return this.read().get(endpointId)?.origin
  }

  /** The endpoint ids that have a stored key (redaction reveals them all to hide them). */
  endpointIds(): string[] {
    return [...this.read().keys()]
  }

  /** The key itself, for the one request that needs it. Never log or return the value. */
  reveal(endpointId: string): RevealedKey {
    const entry = this.read().get(endpointId)
    if (entry === undefined) return { state: 'absent' }
    if ('plain' in entry) return { state: 'ready', value: entry.plain, origin: entry.origin }
    const box = this.availableBox()
    if (box === undefined) {
      return {
        state: 'unreadable',
        origin: entry.origin,
        reason: `the API key of endpoint "${endpointId}" was stored encrypted by the Bridle app and cannot be opened here`,
      }
    }
    try {
      return {
        state: 'ready',
        value: box.decrypt(Buffer.from(entry.sealed, 'base64')),
        origin: entry.origin,
      }
    } catch {
      // The error could only say why the keychain refused; the remedy is the same either way.
      return {
        state: 'unreadable',
        origin: entry.origin,
        reason: `the API key of endpoint "${endpointId}" could not be decrypted (the OS keychain may have changed)`,
      }
    }
  }

  /** Stores (or replaces) the key, bound to `origin`; sealed when a SecretBox is available. */
  set(endpointId: string, value: string, origin: string): void {
    const keys = this.read()
    keys.set(endpointId, { origin, plain: value })
    this.write(keys)
  }

  /** Forgets the key; false when there was none. */
  delete(endpointId: string): boolean {
    const keys = this.read()
    if (!keys.delete(endpointId)) return false
    this.write(keys)
    return true
  }

  private availableBox(): SecretBox | undefined {
    return this.box?.isAvailable() === true ? this.box : undefined
  }

  private read(): Keys {
    const text = readPrivateFile(this.path)
    if (text === undefined) return new Map()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw unusable(this.path, 'is not valid JSON')
    }
    const parsed = CredentialsFile.safeParse(json)
    if (!parsed.success) throw unusable(this.path, 'is not a Bridle credentials file')
    return new Map(Object.entries(parsed.data.keys))
  }

  /** Seals every plain key when a SecretBox is there, so keys stored before it get sealed too. */
  private write(keys: Keys): void {
    const box = this.availableBox()
    const entries = [...keys].map(([id, entry]): [string, Entry] => [
      id,
      box !== undefined && 'plain' in entry
        ? { origin: entry.origin, sealed: box.encrypt(entry.plain).toString('base64') }
        : entry,
    ])
    const file = { version: 1, keys: Object.fromEntries(entries) }
    // writeFileAtomic creates the file 0600 and renames it into place: never briefly readable.
    writeFileAtomic(this.path, [`${JSON.stringify(file, null, 2)}\n`])
  }
}

function unusable(path: string, what: string): HostError {
  return new HostError(
    'INTERNAL',
    `${path} ${what}; delete it and set the API keys again in Settings`,
  )
}

/**
 * The file's text, or undefined when there is none. Opened without following a symlink and
 * checked on the open descriptor, so the file checked is the file read.
 */
function readPrivateFile(path: string): string | undefined {
  let fd: number
  try {
    // O_NOFOLLOW is undefined on Windows, where the OR leaves a plain read-only open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') {
      throw new HostError(
        'INTERNAL',
        `${path} is a symbolic link; API keys are only read from a plain file: delete it and set the keys again in Settings`,
      )
    }
    throw error
  }
  try {
    checkPrivate(path, fstatSync(fd))
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** Refuses a file others could read or change: its keys may already be known to them. */
function checkPrivate(path: string, stat: Stats): void {
  if (!stat.isFile()) {
    throw new HostError(
      'INTERNAL',
      `${path} is not a regular file; delete it and set the API keys again in Settings`,
    )
  }
  // Windows reports made-up mode bits and no owner; its files live in the user's profile.
  if (process.platform === 'win32') return
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) {
    throw new HostError(
      'INTERNAL',
      `${path} belongs to another user (uid ${stat.uid}); Bridle reads API keys only from its own file: delete it and set the keys again in Settings`,
    )
  }
  const mode = stat.mode & 0o777
  if ((mode & 0o077) !== 0) {
    throw new HostError(
      'INTERNAL',
      `${path} can be read or changed by other users (mode ${mode.toString(8).padStart(4, '0')}); API keys must be private: run chmod 600 ${path} (or delete it and set the keys again in Settings)`,
    )
  }
}
