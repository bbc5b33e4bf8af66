/**
 * "Open the settings at the MCP servers": the chat asks before it shows the settings page, and
 * the MCP section takes the request once, when it appears, to bring itself into view. One
 * pending request at most; a request nobody takes is simply replaced by the next.
 */
let isRequested = false

export function requestMcpSection(): void {
  isRequested = true
}

/** True once after `requestMcpSection`; the section that sees it scrolls itself into view. */
export function takeMcpSectionRequest(): boolean {
  const was = isRequested
  isRequested = false
  return was
}
