/**
 * What the safety of commands costs: judging a command line (parse with tree-sitter-bash, then
 * judge), and starting a command in the bubblewrap sandbox against starting the shell directly.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  judgeShellLine,
  loadShellParser,
  parseShellLine,
} from '../../main/core/tools/command/index.js'
import { commandLaunch } from '../../main/core/tools/builtin/bash-sandbox.js'
import { defaultHiddenPaths, sandboxCommand } from '../../main/core/tools/sandbox/bwrap.js'
import { lockPlan } from '../../main/core/tools/sandbox/locks.js'
import { probeSandbox } from '../../main/core/tools/sandbox/probe.js'
import { figure, percentile, time } from './figures.js'
import type { Figure } from './figures.js'

const LINES = [
  'npm test',
  'git status && git diff --stat',
  'rm -rf build dist && npm run build 2>&1 | tail -20',
  'find . -name "*.o" -delete',
  'for f in src/*.ts; do echo "$f"; wc -l "$f"; done',
  'bash -c "cd sub && make -j2"',
  'python3 -c "import json,sys; print(json.load(sys.stdin)[\'x\'])" < data.json',
  'git push origin +main',
]
const STARTS = 30

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', detached: true })
    child.once('error', reject)
    child.once('exit', () => resolve())
  })
}

async function startTimes(file: string, args: readonly string[]): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < STARTS; i++) samples.push(await time(() => run(file, args)))
  return samples
}

export async function benchSafety(): Promise<Figure[]> {
  const project = mkdtempSync(join(tmpdir(), 'bridle-bench-safety-'))
  try {
    const parser = await loadShellParser()
    const env = { home: homedir(), cwd: project }
    const ctx = { projectDir: project, home: homedir() }
    const rounds = 200
    const judged = await time(() => {
      for (let i = 0; i < rounds; i++) {
        for (const line of LINES) judgeShellLine(parseShellLine(parser, line, env), ctx)
      }
    })
    const figures = [
      figure('command judge: parse and judge one line', judged / (rounds * LINES.length), 'ms', {
        text: '< 1 ms',
        isMet: judged / (rounds * LINES.length) < 1,
      }),
    ]
    const direct = percentile(await startTimes('/bin/bash', ['-c', 'true']), 50)
    figures.push(figure('command start: bash directly, p50', direct, 'ms'))
    const status = await probeSandbox()
    if (!status.available) {
      console.log(`skipping the sandbox start figure: ${status.why}`)
      return figures
    }
    const { file, args } = sandboxCommand({
      bwrap: status.bwrap,
      setpriv: status.setpriv,
      projectDir: project,
      cwd: project,
      shell: '/bin/bash',
      command: 'true',
      network: false,
      hide: defaultHiddenPaths(homedir()),
      readOnly: [],
    })
    const boxed = percentile(await startTimes(file, args), 50)
    figures.push(
      figure('command start: in the sandbox, p50', boxed, 'ms', {
        text: '< 50 ms more than directly',
        isMet: boxed - direct < 50,
      }),
      figure('command start: sandbox / direct', boxed / direct, 'x'),
    )
    figures.push(...(await lockedStartFigures(project, boxed)))
    return figures
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}

/**
 * What locking the project's protected paths adds to a sandboxed start: the bash tool's own
 * launch (`commandLaunch`: the lock plan, stand-ins for missing paths, their release) in a small
 * git repository, and the lock plan alone over this checkout (node_modules included), the walk's
 * worst case short of its entry budget.
 */
async function lockedStartFigures(project: string, bare: number): Promise<Figure[]> {
  mkdirSync(join(project, 'src'))
  writeFileSync(join(project, 'src', 'a.ts'), 'export {}\n')
  execFileSync('git', ['init', '-q'], { cwd: project })
  const samples: number[] = []
  for (let i = 0; i < STARTS; i++) {
    samples.push(
      await time(async () => {
        const launch = await commandLaunch(
          { mode: 'required', hide: defaultHiddenPaths(homedir()) },
          {
            projectDir: project,
            cwd: project,
            shell: '/bin/bash',
            command: 'true',
            grant: undefined,
          },
        )
        await run(launch.file, launch.args)
        launch.release()
      }),
    )
  }
  const locked = percentile(samples, 50)
  const plans: number[] = []
  for (let i = 0; i < 10; i++) plans.push(await time(() => lockPlan(process.cwd())))
  return [
    figure('command start: in the sandbox, project locked, p50', locked, 'ms', {
      text: '< 50 ms more than the bare sandbox',
      isMet: locked - bare < 50,
    }),
    figure(
      'sandbox lock plan: this checkout (20,000-entry walk), p50',
      percentile(plans, 50),
      'ms',
    ),
  ]
}
