/**
 * A project's MCP servers as the main process sees them: read with `mcp/list`, read again on
 * every `mcp/changed` (a start, a stop, a failure, a new tool list), and changed through
 * `mcp/trust`, `mcp/setEnabled` and `mcp/restart`, each of which answers with the new list.
 * Answers that arrive after a newer one was asked for are dropped, so the view never goes back.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { BridleApi } from '../../../../../protocol/contract'
import type { McpListView } from '../../../../../protocol/mcp'

export type McpState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly view: McpListView }
  | { readonly status: 'failed'; readonly message: string }

/** What a change does: the list as it now is, or the reason it failed, in the host's words. */
export type McpAction =
  | { readonly method: 'mcp/trust'; readonly trust: boolean; readonly fingerprint?: string }
  | { readonly method: 'mcp/setEnabled'; readonly name: string; readonly enabled: boolean }
  | { readonly method: 'mcp/restart'; readonly name: string }

export interface McpHandle {
  readonly state: McpState
  /** Resolves to an error message, or undefined when the change went through. */
  readonly run: (action: McpAction) => Promise<string | undefined>
}

export function useMcp(api: BridleApi, projectDir: string): McpHandle {
  const [state, setState] = useState<McpState>({ status: 'loading' })
  // Every request takes a number; only the newest one's answer is shown.
  const asked = useRef(0)

  const read = useCallback(async () => {
    const ticket = ++asked.current
    const result = await api.call('mcp/list', { projectDir })
    if (ticket !== asked.current) return
    setState(
      result.ok
        ? { status: 'ready', view: result.value }
        : { status: 'failed', message: result.error.message },
    )
  }, [api, projectDir])

  useEffect(() => {
    setState({ status: 'loading' })
    const unsubscribe = api.subscribe('mcp/changed', () => void read())
    void read()
    return () => {
      // Answers still on their way belong to a folder no longer shown.
      asked.current++
      unsubscribe()
    }
  }, [api, read])

  const run = useCallback(
    async (action: McpAction) => {
      const ticket = ++asked.current
      const result = await callAction(api, projectDir, action)
      if (!result.ok) return result.error.message
      if (ticket === asked.current) setState({ status: 'ready', view: result.value })
      return undefined
    },
    [api, projectDir],
  )

  return { state, run }
}

function callAction(api: BridleApi, projectDir: string, action: McpAction) {
  switch (action.method) {
    case 'mcp/trust':
      return api.call('mcp/trust', {
        projectDir,
        trust: action.trust,
        ...(action.fingerprint === undefined ? {} : { fingerprint: action.fingerprint }),
      })
    case 'mcp/setEnabled':
      return api.call('mcp/setEnabled', { projectDir, name: action.name, enabled: action.enabled })
    case 'mcp/restart':
      return api.call('mcp/restart', { projectDir, name: action.name })
  }
}
