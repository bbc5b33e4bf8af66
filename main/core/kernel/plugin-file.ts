/**
 * Plugins a user keeps in files: an ES module (`.mjs`, or `.js` in an ESM package) whose default
 * export is a plugin, `{ name, setup(ctx) }`. Importing runs the file's code with this process's
 * rights: a plugin is trusted like the harness itself, so only files the user names are loaded.
 */
import { statSync } from 'node:fs'
import { basename, extname, isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Plugin } from './kernel.js'
import type { EventMap } from './types.js'

/** A plugin file that cannot be used: missing, failing to import, or exporting no plugin. */
export class PluginFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
    this.name = 'PluginFileError'
  }
}

/** A configured plugin path, absolute or relative to `baseDir` (the data folder). */
export function pluginPath(entry: string, baseDir: string): string {
  return isAbsolute(entry) ? entry : resolve(baseDir, entry)
}

/**
 * Imports the plugin in `path` (absolute). The module is imported again when the file changed
 * (its modification time is part of the URL), so a new session picks up an edit without a
 * restart; every edit keeps one more module in memory. A plugin without a `name` is named after
 * its file. Throws a PluginFileError saying in words what is wrong.
 */
export async function importPluginFile<E extends EventMap, S extends object>(
  path: string,
): Promise<Plugin<E, S>> {
  let changedAt: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) throw new Error('it is not a file')
    changedAt = stat.mtimeMs
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : describe(error)
    throw new PluginFileError(path, `the plugin ${path} cannot be read: ${why}`, { cause: error })
  }
  let exported: unknown
  try {
    const module = (await import(`${pathToFileURL(path).href}?v=${changedAt}`)) as {
      default?: unknown
    }
    exported = module.default
  } catch (error) {
    throw new PluginFileError(path, `the plugin ${path} failed to load: ${describe(error)}`, {
      cause: error,
    })
  }
  if (typeof exported !== 'object' || exported === null) {
    throw new PluginFileError(
      path,
      `the plugin ${path} has no default export; export default { name, setup(ctx) { ... } }`,
    )
  }
  const { name, setup } = exported as { name?: unknown; setup?: unknown }
  if (typeof setup !== 'function') {
    throw new PluginFileError(path, `the plugin ${path} exports no setup(ctx) function`)
  }
  return {
    name: typeof name === 'string' && name !== '' ? name : basename(path, extname(path)),
    setup: (ctx) => (setup as Plugin<E, S>['setup']).call(exported, ctx),
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
