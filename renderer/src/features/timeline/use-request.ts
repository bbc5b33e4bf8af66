import { useEffect, useState } from 'react'
import type { BridleApi, RequestView } from '../../../../protocol/contract'

export type RequestState =
  | { readonly status: 'idle' }
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly view: RequestView }
  | { readonly status: 'failed'; readonly message: string }

/**
 * Cache of `session/request` answers by session and seq: a request never changes once it is in
 * the log, so one read serves every later look (and the next request's diff).
 */
const cache = new Map<string, Promise<RequestState>>()
const MAX_CACHED = 50

function readRequest(api: BridleApi, sessionId: string, startSeq: number): Promise<RequestState> {
  const key = `${sessionId}:${startSeq}`
  const hit = cache.get(key)
  if (hit) return hit
  const pending = api
    .call('session/request', { sessionId, startSeq })
    .then((result): RequestState =>
      result.ok
        ? { status: 'ready', view: result.value }
        : { status: 'failed', message: `${result.error.code}: ${result.error.message}` },
    )
  // A failure is not kept: the bridge may be back next time.
  void pending.then((state) => {
    if (state.status === 'failed') cache.delete(key)
  })
  cache.set(key, pending)
  if (cache.size > MAX_CACHED) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
  return pending
}

/** What the model was sent at `startSeq` (idle when there is no seq). */
export function useRequest(
  api: BridleApi,
  sessionId: string,
  startSeq: number | undefined,
): RequestState {
  const [state, setState] = useState<{ key: string; value: RequestState }>({
    key: '',
    value: { status: 'idle' },
  })
  const key = startSeq === undefined ? '' : `${sessionId}:${startSeq}`
  useEffect(() => {
    if (startSeq === undefined) return
    let isCurrent = true
    void readRequest(api, sessionId, startSeq).then((value) => {
      if (isCurrent) setState({ key: `${sessionId}:${startSeq}`, value })
    })
    return () => {
      isCurrent = false
    }
  }, [api, sessionId, startSeq])
  if (startSeq === undefined) return { status: 'idle' }
  return state.key === key ? state.value : { status: 'loading' }
}
