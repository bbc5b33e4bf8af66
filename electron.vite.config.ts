import { chmodSync } from 'node:fs'
import { join, resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'
import type { Plugin } from 'vite'
import { META_CSP } from './main/core/host/transport/csp'

const r = (path: string) => resolve(import.meta.dirname, path)

/**
 * Writes the renderer's CSP into the built index.html as the first tag of <head>, a fallback for
 * a page opened without the headers of bridle:// or `bridle serve`. Build only: the dev server
 * injects React's inline refresh preamble, which the policy forbids.
 */
function cspMeta(): Plugin {
  return {
    name: 'bridle-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: META_CSP },
        injectTo: 'head-prepend',
      },
    ],
  }
}

/**
 * Makes the built `bridle` command executable (its first line is `#!/usr/bin/env node`): npm
 * runs a package's own bin as a program, and the bundler writes files without the x bit.
 */
function executableBin(fileName: string): Plugin {
  return {
    name: 'bridle-executable-bin',
    apply: 'build',
    writeBundle(options) {
      if (options.dir !== undefined) chmodSync(join(options.dir, fileName), 0o755)
    },
  }
}

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Pure-JS packages are bundled: loading one file is far cheaper than resolving the hundreds
      // of modules some of them span, which was most of the CLI's start-up. Native
      // and WebAssembly packages (better-sqlite3, web-tree-sitter, quickjs-emscripten) and those
      // that find files beside themselves stay external.
      externalizeDeps: {
        exclude: [
          'zod',
          '@modelcontextprotocol/sdk',
          'micromark',
          'micromark-extension-gfm',
          'jsonrepair',
          'diff',
          'eventsource-parser',
        ],
      },
      rolldownOptions: {
        input: {
          index: r('main/index.ts'),
          // Code mode's worker thread, found by main/core/tools/code/sandbox.ts next to index.js.
          'code-worker': r('main/core/tools/code/worker.ts'),
          // The `bridle` command (package.json "bin"): the CLI, bundled like the app's main. Its
          // first file checks the Node version and only then imports the rest (entry.ts).
          cli: r('main/cli/entry.ts'),
        },
        // Every file of the main bundle in one folder, chunks too: the code that starts the
        // worker finds it beside its own file, wherever the bundler puts that code.
        output: { chunkFileNames: '[name]-[hash].js' },
      },
    },
    plugins: [executableBin('cli.js')],
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload can require nothing but 'electron': bundle everything else (zod) into
      // one CommonJS file, so the window keeps `sandbox: true`.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: r('preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: r('renderer'),
    build: {
      outDir: r('out/renderer'),
      rolldownOptions: { input: { index: r('renderer/index.html') } },
      // No asset as a data: URL: the CSP's font-src is 'self' only (KaTeX's smallest font is 3.6 kB).
      assetsInlineLimit: 0,
    },
    plugins: [react(), cspMeta()],
  },
})
