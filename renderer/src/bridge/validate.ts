import { methods, notifications, resultSchema } from '../../../protocol/contract'
import type {
  MethodName,
  NotificationOf,
  Result,
  ResultOf,
  TopicName,
} from '../../../protocol/contract'

/**
 * The renderer trusts nothing it receives: every result and notification is parsed with the
 * contract's schema, and a mismatch becomes an `INVALID_RESULT` error rather than bad state.
 */
export function checkResult<M extends MethodName>(method: M, raw: unknown): Result<ResultOf<M>> {
  const parsed = resultSchema(methods[method].result).safeParse(raw)
  if (parsed.success) return parsed.data as Result<ResultOf<M>>
  return {
    ok: false,
    error: { code: 'INVALID_RESULT', message: `${method}: the reply does not match the contract` },
  }
}

export function checkNotification<T extends TopicName>(
  topic: T,
  raw: unknown,
): NotificationOf<T> | undefined {
  const parsed = notifications[topic].safeParse(raw)
  if (parsed.success) return parsed.data as NotificationOf<T>
  console.warn(`[bridle] dropped a ${topic} notification that does not match the contract`)
  return undefined
}
