export {
  describeTarget,
  expandVariables,
  MissingVariableError,
  PROJECT_MCP_FILE,
  readProjectMcpFile,
  serversFor,
  transportOf,
} from './config.js'
export type { McpServerEntry, ProjectMcpFile } from './config.js'
export { McpManager } from './manager.js'
export type { McpManagerOptions } from './manager.js'
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  McpCallError,
  McpServer,
} from './server.js'
export type { McpServerPrompt, McpServerResource, McpServerTool } from './server.js'
export { McpSessionTools } from './session-tools.js'
export type { McpNotice } from './session-tools.js'
export { mcpTool, mcpToolName } from './tools.js'
export { resultText } from './result-text.js'
