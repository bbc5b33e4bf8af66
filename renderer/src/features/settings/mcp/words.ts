/** The MCP section's words: a server's state and where it is configured, for people. */
import type { McpScope, McpServerView, McpState } from '../../../../../protocol/mcp'

export const MCP_STATE_LABEL: Readonly<Record<McpState, string>> = {
  running: 'Running',
  starting: 'Starting…',
  stopped: 'Stopped',
  failed: 'Failed',
  disabled: 'Off',
  untrusted: 'Not trusted',
}

/** What a state means when the server gave no reason of its own. */
const STATE_MEANING: Readonly<Record<McpState, string>> = {
  running: 'Its tools are available to sessions in this folder.',
  starting: 'Starting and listing its tools.',
  stopped: 'Starts when a session first needs its tools.',
  failed: 'It could not start.',
  disabled: 'Turned off: it stays configured and never starts.',
  untrusted: "Starts only after you trust the project's .mcp.json.",
}

export const MCP_SCOPE_TEXT: Readonly<Record<McpScope, string>> = {
  user: 'config.json',
  project: "the project's .mcp.json",
}

/** The line under a server's name: why it is in its state, in the host's words when it has some. */
export function mcpStateText(server: McpServerView): string {
  if (server.reason === undefined || server.reason === '') return STATE_MEANING[server.state]
  const reason = server.reason.charAt(0).toUpperCase() + server.reason.slice(1)
  return /[.!?]$/.test(reason) ? reason : `${reason}.`
}
