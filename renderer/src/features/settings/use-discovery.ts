/**
 * `endpoint/discover` as view state: local servers on their usual ports. Shared by the settings
 * panel and the first-run screen; a failed probe is an answer ("none found"), not an error.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { BridleApi, DiscoveredServer } from '../../../../protocol/contract'

export type Discovery =
  | { readonly status: 'idle' }
  | { readonly status: 'searching' }
  | { readonly status: 'done'; readonly servers: readonly DiscoveredServer[] }
  | { readonly status: 'failed'; readonly message: string }

export function useDiscovery(
  api: BridleApi,
  opts: { readonly runAtStart: boolean },
): { readonly discovery: Discovery; readonly run: () => void } {
  const [discovery, setDiscovery] = useState<Discovery>(
    opts.runAtStart ? { status: 'searching' } : { status: 'idle' },
  )
  // A later run supersedes an earlier one still in flight; an unmounted view ignores both.
  const runId = useRef(0)

  const run = useCallback(() => {
    const id = ++runId.current
    setDiscovery({ status: 'searching' })
    void api.call('endpoint/discover', {}).then((result) => {
      if (id !== runId.current) return
      setDiscovery(
        result.ok
          ? { status: 'done', servers: result.value.servers }
          : { status: 'failed', message: result.error.message },
      )
    })
  }, [api])

  const { runAtStart } = opts
  useEffect(() => {
    if (runAtStart) run()
    return () => {
      runId.current++
    }
  }, [run, runAtStart])

  return { discovery, run }
}
