import { useEffect, useRef } from 'react'
import type { BridleApi } from '../../../../../protocol/contract'
import { takeMcpSectionRequest } from './section-request'
import { McpServerCard } from './server-card'
import { McpTrustPrompt } from './trust-prompt'
import { useMcp } from './use-mcp'
import './mcp.css'

export interface McpSectionProps {
  readonly api: BridleApi
  /** The open session's project folder; without one there is no project to list servers for. */
  readonly projectDir: string | undefined
}

/**
 * "MCP servers" for the open project: the user's (config.json) and the project's (.mcp.json),
 * each with its state, tools and stderr, kept current by `mcp/changed`; the project file's trust
 * question on top when it has not been answered.
 */
export function McpSection({ api, projectDir }: McpSectionProps) {
  const headingRef = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    // Asked for from the chat's notice: come into view and take the focus from the page's heading.
    const heading = headingRef.current
    if (!takeMcpSectionRequest() || heading === null) return
    scrollToTop(heading)
    heading.focus({ preventScroll: true })
  }, [])
  return (
    <section className="settings-section mcp-section" aria-labelledby="settings-mcp">
      <h2 id="settings-mcp" ref={headingRef} tabIndex={-1}>
        MCP servers
      </h2>
      {projectDir === undefined ? (
        <p className="settings-hint">Open a project folder to see the MCP servers it would use.</p>
      ) : (
        <McpServers api={api} projectDir={projectDir} />
      )}
    </section>
  )
}

/**
 * Scrolls the nearest scrolling ancestor only: `scrollIntoView` would also scroll the window's
 * fixed layout, pushing the top bar out of sight.
 */
function scrollToTop(element: HTMLElement): void {
  for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) {
    if (
      parent.scrollHeight > parent.clientHeight &&
      getComputedStyle(parent).overflowY !== 'visible'
    ) {
      const offset = element.getBoundingClientRect().top - parent.getBoundingClientRect().top
      parent.scrollTop += offset - SCROLL_MARGIN
      return
    }
  }
}

/** Room left above the section's heading when it is brought into view. */
const SCROLL_MARGIN = 16

function McpServers({ api, projectDir }: { readonly api: BridleApi; readonly projectDir: string }) {
  const { state, run } = useMcp(api, projectDir)
  if (state.status === 'loading') return <p className="muted">Reading the MCP servers…</p>
  if (state.status === 'failed') {
    return (
      <p className="settings-error-text" role="alert">
        The MCP servers could not be read: {state.message}
      </p>
    )
  }
  const { view } = state
  return (
    <>
      <p className="settings-hint">
        Tools from other programs, for sessions in <code>{view.projectDir}</code>.
      </p>
      {view.projectFile === undefined ? null : <McpTrustPrompt file={view.projectFile} run={run} />}
      {view.servers.length === 0 ? (
        <p className="settings-hint">
          No MCP servers yet: add them under <code>mcpServers</code> in config.json, or in a{' '}
          <code>.mcp.json</code> at the project's root.
        </p>
      ) : (
        <ul className="settings-endpoints mcp-servers" aria-label="MCP servers">
          {view.servers.map((server) => (
            <McpServerCard key={`${server.scope}:${server.name}`} server={server} run={run} />
          ))}
        </ul>
      )}
    </>
  )
}

export { requestMcpSection } from './section-request'
