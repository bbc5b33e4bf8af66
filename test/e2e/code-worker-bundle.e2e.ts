/**
 * Code mode's worker as built: `electron-vite build` writes it as its own entry next to the main
 * process's bundle, where the bundled host looks for it, and it runs programs in plain Node (no
 * Electron, no tsx), speaking the host's messages.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { CODE_WORKER_FILE } from '../../main/core/tools/code/sandbox'

const outMain = join(import.meta.dirname, '..', '..', 'out', 'main')

/**
 * Runs in a plain Node child: starts the built worker, answers each tool call with the tool's
 * name, runs the programs of argv[1] (JSON) one after another, prints what each ended with.
 */
const DRIVER = `
import { Worker } from 'node:worker_threads'
const [file, programsJson] = process.argv.slice(1)
// No execArgv: the parent's --input-type is for its own -e script only.
const worker = new Worker(file, { workerData: { heapBytes: 16 << 20 }, execArgv: [] })
const ends = []
for (const code of JSON.parse(programsJson)) {
  const logs = []
  const end = await new Promise((resolve) => {
    const onMessage = (message) => {
      if (message.type === 'log') logs.push(message.line)
      if (message.type === 'call')
        worker.postMessage({ type: 'reply', id: message.id, reply: { ok: true, output: 'from ' + message.name } })
      if (message.type === 'end') {
        worker.off('message', onMessage)
        resolve(message.end)
      }
    }
    worker.on('message', onMessage)
    worker.postMessage({ type: 'run', code, toolNames: ['read'], limits: { timeoutMs: 500, memoryBytes: 16 << 20, maxCalls: 5 } })
  })
  ends.push({ logs, end })
}
console.log(JSON.stringify(ends))
await worker.terminate()
`

function runNode(
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

test('the built code worker sits next to the main bundle and runs programs in plain Node', async () => {
  const worker = join(outMain, CODE_WORKER_FILE)
  expect(existsSync(worker)).toBe(true)
  // The bundled host looks for it by that name next to its own file (a chunk of this folder).
  const host = readdirSync(outMain).filter(
    (name) => name.endsWith('.js') && name !== CODE_WORKER_FILE,
  )
  expect(
    host.some((name) =>
      readFileSync(join(outMain, name), 'utf8').includes(`"${CODE_WORKER_FILE}"`),
    ),
  ).toBe(true)

  const programs = [
    'console.log("calling"); return (await tools.read({ path: "a.txt" })) + "!"',
    'await tools.read({}); for (;;) {}',
  ]
  const run = await runNode(['--input-type=module', '-e', DRIVER, worker, JSON.stringify(programs)])
  expect(run.stderr).toBe('')
  expect(run.status).toBe(0)
  expect(JSON.parse(run.stdout)).toEqual([
    { logs: ['calling'], end: { ok: true, value: 'from read!', isClean: true } },
    {
      logs: [],
      end: {
        ok: false,
        code: 'CODE_TIME_LIMIT',
        message: 'The program ran past its time limit of 0.5 s and was stopped.',
      },
    },
  ])
})
