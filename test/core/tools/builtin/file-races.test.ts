/**
 * The file tools against a folder swapped for a symbolic link while they run (issue: "file tools
 * cannot be raced"). A real child process swaps `project/d` between a real folder and a link to a
 * sentinel tree outside the project, as fast as it can, while each tool is called thousands of
 * times on paths under `d`. No output may hold a byte or a name from outside, and the outside
 * tree must hash the same before and after. Each test also asserts the race was really run: some
 * calls met the swapped state (an error) and some ran on the real folder.
 */
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editTool } from '../../../../main/core/tools/builtin/edit.js'
import { globTool } from '../../../../main/core/tools/builtin/glob.js'
import { grepTool } from '../../../../main/core/tools/builtin/grep.js'
import { listTool } from '../../../../main/core/tools/builtin/list.js'
import { readTool } from '../../../../main/core/tools/builtin/read.js'
import { writeTool } from '../../../../main/core/tools/builtin/write.js'
import { ToolError } from '../../../../main/core/tools/types.js'
import type { Tool, ToolContext } from '../../../../main/core/tools/types.js'

/** Calls per test: enough that, before the fix, dozens landed outside (82 of ~3,000 reads). */
const ITERATIONS = 3000
const SECRET = 'SENTINEL-PRIVATE-KEY-7f3a'
const OUTSIDE_ONLY = 'only-outside-name.txt'

const hasRipgrep = spawnSync('rg', ['--version']).status === 0
if (!hasRipgrep) console.warn('ripgrep (rg) is not on PATH: the ripgrep grep race is skipped')

let base: string
let project: string
let outside: string
let swapper: ChildProcess | undefined

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-races-')))
  project = join(base, 'project')
  outside = join(base, 'home', '.ssh')
  mkdirSync(join(project, 'd', 'sub'), { recursive: true })
  mkdirSync(join(outside, 'sub'), { recursive: true })
  writeFileSync(join(outside, 'id_rsa'), `${SECRET}\n`)
  writeFileSync(join(outside, 'authorized_keys'), 'ssh-ed25519 AAAA the-user\n')
  writeFileSync(join(outside, 'notes.txt'), `${SECRET} notes\n`)
  writeFileSync(join(outside, OUTSIDE_ONLY), `${SECRET}\n`)
  writeFileSync(join(outside, 'sub', 'deep.txt'), `${SECRET}\n`)
  writeFileSync(join(project, 'd', 'id_rsa'), 'a harmless file of the project\n')
  writeFileSync(join(project, 'd', 'authorized_keys'), 'project keys\n')
  writeFileSync(join(project, 'd', 'notes.txt'), 'project notes\n')
  writeFileSync(join(project, 'd', 'sub', 'deep.txt'), 'project deep\n')
})

afterEach(async () => {
  await stopSwapper()
  rmSync(base, { recursive: true, force: true })
})

/** Every name, mode and byte under `dir`, hashed: any change outside shows as a new hash. */
function treeHash(dir: string): string {
  const hash = createHash('sha256')
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name)
      const info = lstatSync(path)
      hash.update(`${path}\0${info.mode}\0${info.size}\0`)
      if (info.isDirectory()) walk(path)
      else if (info.isFile()) hash.update(readFileSync(path))
    }
  }
  walk(dir)
  return hash.digest('hex')
}

/**
 * Starts a child that swaps `project/d` for a link to the outside tree and back, in a loop,
 * until it is killed or 60 s pass. Resolves once it has swapped at least once.
 */
/**
 * Puts the real `d` back in place, whatever is there now (a link, nothing, or a folder a tool
 * made while `d` was away: write creates missing folders). Also sent to the swapper as source.
 */
function putBack(files: typeof fs, d: string, hold: string): void {
  if (!files.existsSync(hold)) return
  const at = files.lstatSync(d, { throwIfNoEntry: false })
  if (at?.isSymbolicLink() === true) files.unlinkSync(d)
  else if (at) files.rmSync(d, { recursive: true, force: true })
  files.renameSync(hold, d)
}

async function startSwapper(): Promise<void> {
  const script = `
    const fs = require('node:fs')
    const [d, hold, target] = process.argv.slice(1)
    const putBack = ${putBack.toString()}
    const end = Date.now() + 60_000
    let told = false
    while (Date.now() < end) {
      try {
        fs.renameSync(d, hold)
        fs.symlinkSync(target, d)
        if (!told) { told = true; process.stdout.write('swapping\\n') }
        fs.unlinkSync(d)
        fs.renameSync(hold, d)
      } catch {
        // A tool created d while it was away (write makes missing folders): put the real one back.
        try { putBack(fs, d, hold) } catch {}
      }
    }`
  const child = spawn(
    process.execPath,
    ['-e', script, join(project, 'd'), join(project, 'd.hold'), outside],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  swapper = child
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the swapper exited early (${code})`)))
  })
}

async function stopSwapper(): Promise<void> {
  const child = swapper
  swapper = undefined
  if (!child || child.exitCode !== null) return
  const gone = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await gone
}

/** Puts `d` back as the real folder (the swapper may have been stopped mid-swap). */
function settle(): void {
  const d = join(project, 'd')
  const hold = join(project, 'd.hold')
  putBack(fs, d, hold)
}

const ctx = (): ToolContext => ({
  projectDir: project,
  signal: new AbortController().signal,
  beforeWrite: () => undefined,
})

interface Tally {
  ok: number
  failed: Map<string, number>
  outputs: string[]
}

/**
 * Runs `tool` with `args` ITERATIONS times while the swapper runs; what came back, tallied.
 * `isRefused`: the tool refuses what the swap shows it (false for a search of the whole project,
 * which just finds less while `d` is away; it must then see `d` both ways).
 */
async function race(
  tool: Tool,
  args: () => Record<string, unknown>,
  { isRefused = true, iterations = ITERATIONS } = {},
): Promise<Tally> {
  const before = treeHash(outside)
  await startSwapper()
  const tally: Tally = { ok: 0, failed: new Map(), outputs: [] }
  // At least ITERATIONS calls, then on until both states were met (a loaded machine can keep the
  // swapper off the CPU while `d` is a link for a long stretch), for 60 s at most.
  const deadline = Date.now() + 60_000
  for (let i = 0; i < iterations || (!isSettled(tally, isRefused) && Date.now() < deadline); i++) {
    try {
      const parsed = tool.schema.parse(args())
      const { output } = await tool.run(parsed, ctx())
      tally.ok++
      tally.outputs.push(output)
    } catch (error) {
      const code = error instanceof ToolError ? error.code : `thrown ${String(error)}`
      tally.failed.set(code, (tally.failed.get(code) ?? 0) + 1)
    }
  }
  await stopSwapper()
  settle()
  expect(treeHash(outside), 'the tree outside the project changed').toBe(before)
  for (const output of tally.outputs) {
    expect(output).not.toContain(SECRET)
    expect(output).not.toContain(OUTSIDE_ONLY)
  }
  const failures = [...tally.failed.values()].reduce((a, b) => a + b, 0)
  // The race ran: some calls met the real folder, some the swapped state.
  expect(tally.ok, `no call succeeded: ${JSON.stringify([...tally.failed])}`).toBeGreaterThan(0)
  if (isRefused) expect(failures, 'no call ever met the swapped folder').toBeGreaterThan(0)
  else expect(new Set(tally.outputs).size, 'every search saw d the same').toBeGreaterThan(1)
  // Every refusal is one the model can act on, never a crash of the tool.
  for (const code of tally.failed.keys()) expect(code).not.toMatch(/^thrown /)
  return tally
}

/** Whether the race has met both states: a call on the real `d`, and one on the swapped state. */
function isSettled(tally: Tally, isRefused: boolean): boolean {
  if (tally.ok === 0) return false
  return isRefused ? tally.failed.size > 0 : new Set(tally.outputs).size > 1
}

describe('file tools raced by a folder swapped for a link to ~/.ssh', () => {
  it('read never returns a byte of the file outside', { timeout: 120_000 }, async () => {
    await race(readTool(), () => ({ path: 'd/id_rsa' }))
  })

  it(
    'write never writes outside, and never leaves a temp file there',
    { timeout: 120_000 },
    async () => {
      const tally = await race(writeTool(), () => ({
        path: 'd/authorized_keys',
        content: 'ssh-rsa ATTACKER\n',
      }))
      expect(readFileSync(join(project, 'd', 'authorized_keys'), 'utf8')).toBe('ssh-rsa ATTACKER\n')
      expect(tally.ok).toBeGreaterThan(0)
    },
  )

  it('write into a missing subfolder never creates it outside', { timeout: 120_000 }, async () => {
    let i = 0
    await race(writeTool(), () => ({ path: `d/new${i++ % 50}/f.txt`, content: 'x\n' }))
  })

  it('edit never reads or writes the file outside', { timeout: 120_000 }, async () => {
    let i = 0
    await race(editTool(), () => {
      const [from, to] = i++ % 2 === 0 ? ['notes', 'NOTES'] : ['NOTES', 'notes']
      return { path: 'd/notes.txt', oldText: from, newText: to }
    })
  })

  it('list never lists the folder outside', { timeout: 120_000 }, async () => {
    await race(listTool(), () => ({ path: 'd', depth: 2 }))
  })

  it('glob never names a file outside', { timeout: 120_000 }, async () => {
    await race(globTool(), () => ({ pattern: '**/*.txt', path: 'd' }))
  })

  it('grep (pure JS) never shows a line of a file outside', { timeout: 120_000 }, async () => {
    await race(grepTool({ ripgrepPath: null }), () => ({ pattern: 'SENTINEL|project', path: 'd' }))
  })

  it.skipIf(!hasRipgrep)(
    'grep (ripgrep) never shows a line of a file outside',
    { timeout: 120_000 },
    async () => {
      const search = () => ({ pattern: 'SENTINEL|project' })
      // Each call starts ripgrep (a few ms), so fewer calls; each searches every file under d.
      await race(grepTool({ ripgrepPath: 'rg' }), search, { isRefused: false, iterations: 400 })
    },
  )
})
