/**
 * The `bridle` command as installed: package.json's bin is the bundle `npm run build` (and
 * `npm install`, through `prepare`) writes to out/main/cli.js, and it runs in plain Node without
 * tsx. `npx bridle` finds it in this checkout; a turn through the bundle reaches the pieces that
 * load files beside their own modules (the bash parser's WebAssembly, the code-mode worker), and
 * the MCP SDK, bundled, still starts a stdio server.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { fixtureServer } from '../fixtures/mcp-server/index'
import { chatRequests, startModelServer } from '../fixtures/model-server/server'

const repoRoot = join(import.meta.dirname, '..', '..')
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string
  bin: Record<string, string>
}

function run(
  command: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

test('npx bridle runs the bundled bin: its version and help', async () => {
  expect(pkg.bin['bridle']).toBe('out/main/cli.js')
  const version = await run('npx', ['--no-install', 'bridle', '--version'])
  expect(version.status).toBe(0)
  expect(version.stdout).toBe(`${pkg.version}\n`)
  const help = await run('npx', ['--no-install', 'bridle', '--help'])
  expect(help.status).toBe(0)
  expect(help.stdout).toContain('Usage: bridle <command> [options]')
  expect(help.stdout).toContain('  bridle run --base-url')
})

/**
 * Records every module the process loads (Node's in-thread loader hooks) and prints their URLs
 * as JSON on stderr when it exits.
 */
const RECORD_LOADS = `data:text/javascript,${encodeURIComponent(`
  import { registerHooks } from 'node:module'
  const loaded = []
  registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context) } })
  process.on('exit', () => process.stderr.write(JSON.stringify(loaded)))
`)}`

test("the help loads no command's code: only the table and its chunk, no package", async () => {
  const help = await run(process.execPath, [
    '--import',
    RECORD_LOADS,
    pkg.bin['bridle'] ?? '',
    '--help',
  ])
  expect(help.status).toBe(0)
  expect(help.stdout).toContain('Usage: bridle <command> [options]')
  const loaded = (JSON.parse(help.stderr) as string[]).filter((url) => url.startsWith('file:'))
  expect(loaded.filter((url) => url.includes('/node_modules/'))).toEqual([])
  const bundleBytes = loaded.reduce((sum, url) => sum + statSync(new URL(url)).size, 0)
  // The whole bundle is megabytes (the model client, zod, the tools); the help needs 20 kB.
  expect(bundleBytes).toBeLessThan(64 * 1024)
})

test('a turn through the bundle: a bash command and a code-mode program', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bin-'))
  const project = join(dir, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'README.md'), 'Read through the bundle.\n')
  const server = await startModelServer({
    script: [
      {
        steps: [
          {
            toolCall: {
              name: 'bash',
              args: JSON.stringify({ command: 'echo from-the-bundle > out.txt' }),
            },
          },
          { finish: 'tool_calls' },
        ],
      },
      {
        steps: [
          {
            toolCall: {
              name: 'run_code',
              args: JSON.stringify({ code: "return await tools.read({ path: 'README.md' })" }),
            },
          },
          { finish: 'tool_calls' },
        ],
      },
      'Both done.',
    ],
  })
  try {
    const result = await run(process.execPath, [
      join(repoRoot, pkg.bin['bridle'] ?? ''),
      'run',
      '--home',
      join(dir, 'home'),
      '--project',
      project,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--approval',
      'full-auto',
      '--code-mode',
      'Write a file, then read the README in code.',
    ])
    expect(result.stderr).not.toContain('Error')
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('Both done.')
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('from-the-bundle\n')
    // The program's result (the README, read by an inner call) reached the next request.
    expect(JSON.stringify(chatRequests(server).at(-1)?.body)).toContain('Read through the bundle.')
  } finally {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the bundle speaks MCP: a stdio server of config.json is listed running with its tools', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bridle-bin-mcp-'))
  try {
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ mcpServers: { fixture: fixtureServer() } }),
    )
    const listed = await run(process.execPath, [
      join(repoRoot, pkg.bin['bridle'] ?? ''),
      'mcp',
      'list',
      '--json',
      '--home',
      home,
      '--project',
      home,
    ])
    expect(listed.stderr).toBe('')
    expect(listed.status).toBe(0)
    expect(listed.stdout).toContain('"fixture"')
    expect(listed.stdout).toContain('echo')
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
})

test('the bundle serves the built renderer: bridle serve finds it beside its own folder', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bridle-bin-serve-'))
  const child = spawn(
    process.execPath,
    [pkg.bin['bridle'] ?? '', 'serve', '--port', '0', '--home', home],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  try {
    let output = ''
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /serving at (http:\/\/\S+)/.exec(output)
        if (match?.[1]) resolve(match[1])
      })
      child.once('close', (status) => reject(new Error(`serve ended (${status}): ${output}`)))
    })
    // The token in the address becomes a cookie, and the page is served to it.
    const entry = await fetch(address, { redirect: 'manual' })
    const cookie = entry.headers.get('set-cookie')?.split(';')[0] ?? ''
    const page = await fetch(new URL(entry.headers.get('location') ?? '/', address), {
      headers: { cookie },
    })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<title>Bridle</title>')
    expect(html).toContain('<div id="root"')
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('close', resolve))
    rmSync(home, { recursive: true, force: true })
  }
})
