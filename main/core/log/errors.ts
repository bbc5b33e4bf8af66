/** Why the log refused something. Codes are stable; tests and callers match on them. */
export type LogErrorCode =
  /** The data failed its type's schema, or is not plain JSON (a cycle, a function, NaN). */
  | 'INVALID_EVENT'
  | 'UNKNOWN_EVENT_TYPE'
  /** A turn/step rule: a step outside a turn, a turn inside a turn, a message outside a step. */
  | 'ENCLOSURE'
  /** A tool call or result without its partner, a second result, a step ending with open calls. */
  | 'PAIRING'
  /** A surface replace that would split a call from its result, or a range not on the surface. */
  | 'INVALID_REPLACE'
  | 'DUPLICATE_REQUEST'
  /** The session was opened for reading; appends are refused. */
  | 'READ_ONLY'
  | 'CLOSED'
  /** A stored row does not parse, has an unknown type, or breaks the seq order. */
  | 'CORRUPT_LOG'
  /** The store refused the commit; in-memory state was rolled back to before the batch. */
  | 'WRITE_FAILED'
  | 'INVALID_FORK'

export class LogError extends Error {
  constructor(
    readonly code: LogErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'LogError'
  }
}
