/**
 * The project's MCP prompts and resources for the composer: asked for (`want`) when the `/` or
 * `@` list first opens, and asked for again at the next opening after `mcp/changed`, never in a
 * loop: asking starts servers, and a start is itself an `mcp/changed`. Until it arrives (or when
 * it cannot be had) the lists show what they have without it. A new source (another project)
 * starts over; answers still on their way for the old one are dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { McpCatalogView } from '../../../../../protocol/mcp'
import type { McpSource } from './use-mcp-source'

export interface McpCatalogHandle {
  readonly catalog: McpCatalogView | undefined
  /** Fetches the catalog unless the one held is current or on its way. */
  readonly want: () => void
}

export function useMcpCatalog(source: McpSource | undefined): McpCatalogHandle {
  const [catalog, setCatalog] = useState<McpCatalogView>()
  const isStale = useRef(true)
  const asked = useRef(0)

  useEffect(() => {
    setCatalog(undefined)
    isStale.current = true
    asked.current++
    if (!source) return undefined
    return source.onChanged(() => {
      isStale.current = true
    })
  }, [source])

  const want = useCallback(() => {
    if (!source || !isStale.current) return
    isStale.current = false
    const ticket = ++asked.current
    source.catalog().then(
      (next) => {
        if (ticket === asked.current) setCatalog(next)
      },
      // No catalog (the bridge is down): the lists go on without it; the next opening asks again.
      () => {
        if (ticket === asked.current) isStale.current = true
      },
    )
  }, [source])

  return { catalog, want }
}
