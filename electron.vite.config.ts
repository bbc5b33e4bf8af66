import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'

const r = (path: string) => resolve(import.meta.dirname, path)

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rolldownOptions: { input: { index: r('main/index.ts') } },
    },
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
    },
    plugins: [react()],
  },
})
