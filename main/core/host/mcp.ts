/**
 * The MCP servers of a project as the host sees them: the user's from config.json, the project's
 * from its `.mcp.json` (off until the user trusts that content). Shared by the app's runtime and
 * the CLI, so both start the same servers for the same folder.
 */
import { readProjectMcpFile, serversFor } from '../mcp/config.js'
import type { McpServerEntry, ProjectMcpFile } from '../mcp/config.js'
import type { McpTrust } from './mcp-trust.js'
import type { Config } from './settings/config.js'

export interface ProjectMcp {
  readonly entries: readonly McpServerEntry[]
  /** The project's `.mcp.json` as read (none, its servers and hash, or why it cannot be used). */
  readonly file: ProjectMcpFile
  /** The file has servers and this content is not trusted yet. */
  readonly needsTrust: boolean
}

export function projectMcp(config: Config, projectDir: string, trust: McpTrust): ProjectMcp {
  const file = readProjectMcpFile(projectDir)
  const isTrusted = (sha256: string) => trust.isTrusted(projectDir, sha256)
  return {
    entries: serversFor(config.mcpServers ?? {}, file, isTrusted),
    file,
    needsTrust:
      file.kind === 'servers' && Object.keys(file.servers).length > 0 && !isTrusted(file.sha256),
  }
}
