/**
 * Loads tree-sitter's bash grammar (WebAssembly, so no native module to rebuild for Electron).
 * Loading takes tens of milliseconds and the runtime can hold only one copy, so it happens once
 * per process: every caller shares the first promise.
 */
import { createRequire } from 'node:module'
import type { Tree } from 'web-tree-sitter'

/** A loaded bash parser. Parsing is synchronous; a tree must be deleted when done with. */
export interface ShellParser {
  parseTree(text: string): Tree
}

let loading: Promise<ShellParser> | undefined

/**
 * The shared parser, loaded on first use. Both wasm files are resolved from this module's
 * location, which works from the sources, under vitest, and from the bundled Electron main
 * (dependencies stay in node_modules there). A failed load is not cached, so a later call retries.
 */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined
    throw new Error(
      `The bash grammar could not be loaded (${error instanceof Error ? error.message : String(error)}); ` +
        'reinstall the web-tree-sitter and tree-sitter-bash packages.',
    )
  })
  return loading
}

async function load(): Promise<ShellParser> {
  // Imported here, not at the top: a start that runs no command never loads the runtime.
  const { Language, Parser } = await import('web-tree-sitter')
  const require = createRequire(import.meta.url)
  const runtime = require.resolve('web-tree-sitter/tree-sitter.wasm')
  await Parser.init({ locateFile: () => runtime })
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
  const parser = new Parser()
  parser.setLanguage(bash)
  return {
    parseTree(text) {
      const tree = parser.parse(text)
      // Only null when no language is set or a parse is cancelled, and we do neither.
      if (tree === null) throw new Error('the bash parser returned no tree')
      return tree
    },
  }
}
