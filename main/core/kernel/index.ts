export { Kernel, PluginError } from './kernel.js'
export type { Plugin, PluginContext } from './kernel.js'
export { importPluginFile, PluginFileError, pluginPath } from './plugin-file.js'
export type * from './types.js'
