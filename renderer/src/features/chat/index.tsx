/**
 * The chat feature: the conversation of the open session (ChatPanel) and the message box
 * (Composer). The shell mounts both and hands ChatPanel the session's feed (features/feed.ts).
 */
export { ChatPanel } from './chat-panel'
export { Composer } from './composer'
export { ModelPicker } from './model-picker'
export type { ComposerProps } from './composer'
export { useProjectFiles } from './attach/use-project-files'
export { useMcpSource } from './attach/use-mcp-source'
