import { StoreError } from './types.js'

/** Where a `listSessions` page ended: the last item's sort key (updated_at DESC, id DESC). */
export interface SessionCursor {
  readonly updatedAt: number
  readonly id: string
}

/** Opaque to callers: base64url of the sort key, so the bridge can pass it around as a string. */
export function encodeCursor(cursor: SessionCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id]), 'utf8').toString('base64url')
}

/** Cursors cross the bridge from the renderer (untrusted): anything malformed is INVALID_CURSOR. */
export function decodeCursor(text: string): SessionCursor {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    value = undefined
  }
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    Number.isSafeInteger(value[0]) &&
    typeof value[1] === 'string'
  ) {
    return { updatedAt: value[0] as number, id: value[1] }
  }
  throw new StoreError(
    'INVALID_CURSOR',
    'the session list cursor is not one this store produced; start again from the first page',
  )
}
