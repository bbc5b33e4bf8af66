export type * from './types.js'
export {
  createOpenAiCompatibleAdapter,
  DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
} from './openai-compatible.js'
export type { AdapterOptions } from './openai-compatible.js'
export { MISSING_TOOL_NAME } from './chunk-decoder.js'
export { toChatCompletionParams } from './chat-request.js'
export {
  DEFAULT_DISCOVERY_HOSTS,
  DEFAULT_DISCOVERY_PORTS,
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  discoverEndpoints,
  listModels,
} from './discovery.js'
export type {
  DiscoverOptions,
  DiscoveredEndpoint,
  EndpointKind,
  ListModelsResult,
} from './discovery.js'
