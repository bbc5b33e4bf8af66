import { useMemo } from 'react'
import type { BridleApi } from '../../../../../protocol/contract'
import type { McpCatalogView } from '../../../../../protocol/mcp'

/**
 * What the composer may ask of the project's MCP servers, with the bridge kept out of it: their
 * prompts and resources (`mcp/catalog`), a prompt filled in (`mcp/prompt`), and word that they
 * changed (`mcp/changed`). A failed call rejects with the host's sentence as its message.
 */
export interface McpSource {
  readonly catalog: () => Promise<McpCatalogView>
  readonly fillPrompt: (
    server: string,
    name: string,
    args: Readonly<Record<string, string>>,
  ) => Promise<string>
  /** Calls `listener` on every `mcp/changed`; returns its disposer. */
  readonly onChanged: (listener: () => void) => () => void
}

/** The MCP source of `projectDir` (the open session's, else the sidebar's); none without one. */
export function useMcpSource(
  api: BridleApi,
  projectDir: string | undefined,
): McpSource | undefined {
  return useMemo(() => {
    if (projectDir === undefined) return undefined
    return {
      catalog: async () => {
        const result = await api.call('mcp/catalog', { projectDir })
        if (!result.ok) throw new Error(result.error.message)
        return result.value
      },
      fillPrompt: async (server, name, args) => {
        const result = await api.call('mcp/prompt', {
          projectDir,
          server,
          name,
          arguments: { ...args },
        })
        if (!result.ok) throw new Error(result.error.message)
        return result.value.text
      },
      onChanged: (listener) => api.subscribe('mcp/changed', () => listener()),
    }
  }, [api, projectDir])
}
