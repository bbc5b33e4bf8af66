import { createHash, randomBytes } from 'node:crypto'
import { PAGE_SECRET_PROTOCOL_PREFIX } from '../../../../protocol/contract.js'

/**
 * An issued secret no page has used within this long is forgotten: admission redirects straight to
 * the page, which connects as it loads; five minutes leave room for a machine under load.
 */
export const UNCLAIMED_SECRET_MS = 5 * 60 * 1000

/**
 * The per-page secrets of `bridle serve` (see PAGE_SECRET_FRAGMENT in protocol/contract.ts). A
 * secret is issued to one admission (one request with the printed token) and reaches only the page
 * that admission redirects to. Once a socket opened with it, it stays good for reconnects and
 * reloads of that tab while this serve runs; unused, it expires after UNCLAIMED_SECRET_MS.
 * Only digests are kept, so a lookup's timing says nothing about a secret.
 */
export interface PageSecrets {
  /** A fresh secret (32 random bytes, base64url: valid in a subprotocol token). */
  issue(): string
  /** Whether `secret` was issued here and is still good; a good one is marked used. Never throws. */
  accept(secret: string): boolean
}

interface Issued {
  readonly issuedAt: number
  claimed: boolean
}

const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64')

/** `now` is injected so tests can let time pass. */
export function createPageSecrets(now: () => number = Date.now): PageSecrets {
  const issued = new Map<string, Issued>()
  const expired = (entry: Issued, at: number): boolean =>
    !entry.claimed && at - entry.issuedAt > UNCLAIMED_SECRET_MS
  const prune = (at: number): void => {
    for (const [key, entry] of issued) if (expired(entry, at)) issued.delete(key)
  }
  return {
    issue() {
      const at = now()
      prune(at)
      const secret = randomBytes(32).toString('base64url')
      issued.set(digest(secret), { issuedAt: at, claimed: false })
      return secret
    },
    accept(secret) {
      const entry = issued.get(digest(secret))
      if (entry === undefined || expired(entry, now())) return false
      entry.claimed = true
      return true
    },
  }
}

/**
 * The page secret offered in a `Sec-WebSocket-Protocol` header (a comma-separated list), or
 * undefined when none of the offered subprotocols is one.
 */
export function offeredPageSecret(header: string | string[] | undefined): string | undefined {
  const offered = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')
  for (const protocol of offered.map((p) => p.trim())) {
    if (protocol.startsWith(PAGE_SECRET_PROTOCOL_PREFIX)) {
      return protocol.slice(PAGE_SECRET_PROTOCOL_PREFIX.length)
    }
  }
  return undefined
}
