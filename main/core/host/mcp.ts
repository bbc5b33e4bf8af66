/**
 * The MCP servers of a project as the host sees them: the user's from config.json, the project's
 * from its `.mcp.json` (off until the user trusts them: the file and every project file its
 * command lines name, see `mcp-fingerprint.ts`). Shared by the app's runtime and the CLI, so both
 * start the same servers for the same folder and ask the same question.
 */
import { readProjectMcpFile, serversFor } from '../mcp/config.js'
import type { McpServerEntry, ProjectMcpFile } from '../mcp/config.js'
import { fingerprintProjectMcp } from './mcp-fingerprint.js'
import type { McpFingerprint } from './mcp-fingerprint.js'
import type { McpTrust } from './mcp-trust.js'
import type { Config } from './settings/config.js'

export interface ProjectMcp {
  readonly entries: readonly McpServerEntry[]
  /** The project's `.mcp.json` as read (none, its servers and hash, or why it cannot be used). */
  readonly file: ProjectMcpFile
  /** What trust is given to, when the file has servers. */
  readonly fingerprint?: McpFingerprint
  /** The fingerprint matches what the user trusted. */
  readonly trusted: boolean
  /** The file has servers and they are not trusted as they are now. */
  readonly needsTrust: boolean
}

export function projectMcp(config: Config, projectDir: string, trust: McpTrust): ProjectMcp {
  const file = readProjectMcpFile(projectDir)
  const fingerprint =
    file.kind === 'servers'
      ? fingerprintProjectMcp(projectDir, file.sha256, file.servers)
      : undefined
  const trusted = fingerprint !== undefined && trust.isTrusted(projectDir, fingerprint.sha256)
  return {
    // `serversFor` asks about the file's hash; the answer is for the whole fingerprint.
    entries: serversFor(config.mcpServers ?? {}, file, () => trusted),
    file,
    ...(fingerprint === undefined ? {} : { fingerprint }),
    trusted,
    needsTrust: file.kind === 'servers' && Object.keys(file.servers).length > 0 && !trusted,
  }
}
