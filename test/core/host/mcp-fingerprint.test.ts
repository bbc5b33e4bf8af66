import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fingerprintProjectMcp } from '../../../main/core/host/mcp-fingerprint.js'
import type { McpServers } from '../../../protocol/mcp.js'

let root: string
let project: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-mcp-fp-')))
  project = join(root, 'project')
  mkdirSync(project)
})

afterEach(() => rmSync(root, { recursive: true, force: true }))

function write(path: string, text = 'x'): void {
  mkdirSync(dirname(join(project, path)), { recursive: true })
  writeFileSync(join(project, path), text)
}

const covered = (servers: McpServers) =>
  fingerprintProjectMcp(project, 'f'.repeat(64), servers).files['s']?.map((f) => f.path) ?? []
const hash = (servers: McpServers) => fingerprintProjectMcp(project, 'f'.repeat(64), servers).sha256

describe('what trust in a project MCP server covers', () => {
  it('the command when it is a path, each path argument, a flag value and the words of sh -c', () => {
    write('bin/run')
    write('lib/app.js')
    write('srv.py')
    expect(
      covered({
        s: {
          command: './bin/run',
          args: ['--config=conf/app.json', 'lib/app.js', '-c', 'python3 srv.py --port 8080'],
        },
      }),
    ).toEqual(expect.arrayContaining(['bin/run', 'conf/app.json', 'lib/app.js', 'srv.py', '8080']))
  })

  it('a Python module: its file, its package files and its parents, missing ones included', () => {
    write('pkg/__init__.py')
    write('pkg/srv.py')
    expect(covered({ s: { command: 'python3', args: ['-m', 'pkg.srv'] } })).toEqual(
      expect.arrayContaining([
        'pkg/__init__.py',
        'pkg/srv.py',
        'pkg/srv/__init__.py',
        'pkg/srv/__main__.py',
      ]),
    )
  })

  it("npx: the package's package.json, its bin file and the .bin link, scoped names too", () => {
    write(
      'node_modules/@acme/mcp/package.json',
      JSON.stringify({ name: '@acme/mcp', bin: { 'acme-mcp': 'dist/cli.js' } }),
    )
    write('node_modules/@acme/mcp/dist/cli.js')
    expect(covered({ s: { command: 'npx', args: ['-y', '@acme/mcp@1.2.3'] } })).toEqual(
      expect.arrayContaining([
        'node_modules/@acme/mcp/package.json',
        'node_modules/@acme/mcp/dist/cli.js',
        'node_modules/.bin/acme-mcp',
      ]),
    )
  })

  it('a file that appears later, a changed file and a changed command are each a change', () => {
    const servers: McpServers = { s: { command: 'python3', args: ['srv.py'] } }
    const missing = hash(servers)
    write('srv.py', 'one')
    const one = hash(servers)
    expect(one).not.toBe(missing)
    write('srv.py', 'two')
    expect(hash(servers)).not.toBe(one)
    expect(hash(servers)).toBe(hash(servers))
    expect(hash({ s: { command: 'python3', args: ['srv.py', '-u'] } })).not.toBe(hash(servers))
  })

  it('leaves out files outside the project, programs on PATH and URLs', () => {
    writeFileSync(join(root, 'outside.py'), 'x')
    expect(
      covered({
        s: { command: 'python3', args: [join(root, 'outside.py'), '../outside.py', 'https://x/y'] },
      }),
    ).toEqual([])
  })
})
