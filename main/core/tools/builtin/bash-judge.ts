/**
 * How the `bash` tool judges its calls: the command line is parsed with bash's grammar
 * (`../command/`), each simple command judged on its parsed argv (a destructive command, a write
 * outside the project or to a protected path), and standing grants are patterns on that argv,
 * never a text prefix. The parser loads once (WebAssembly); `assess` waits for it, and the grant
 * hooks, which the approval policy calls only after `assess`, use it as loaded.
 *
 * Where the command will run matters too: in the sandbox, anything the judge lets through is
 * held inside the project by the OS. Without it (setting `off`, or `auto` where bubblewrap cannot
 * run: always on macOS and Windows), the judge must prove the line stays inside the project
 * (`uncontainedReasons`); what it cannot prove carries `uncontained`, so the approval mode alone
 * never runs it.
 */
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname } from 'node:path'
import { HOME_CREDENTIALS, homeFileOf, homePathsUnder } from '../home-files.js'
import {
  grantChoices,
  grantCovers,
  grantTouches,
  judgeShellLine,
  loadShellParser,
  parsePattern,
  parseShellLine,
  patternText,
  uncontainedReasons,
} from '../command/index.js'
import type {
  CommandPattern,
  JudgeContext,
  Judgement,
  ShellLine,
  ShellParser,
} from '../command/index.js'
import { protectedPathReason } from '../protected-paths.js'
import type { CallAssessment, ToolGrants } from '../types.js'
import { resolveInsideProject } from '../../workspace/paths.js'
import { sandboxStatus } from './bash-sandbox.js'
import type { BashSandbox } from './bash-sandbox.js'

export interface BashCall {
  readonly command: string
  readonly workdir?: string | undefined
  readonly network?: boolean | undefined
}

interface Analysis {
  readonly line: ShellLine
  readonly judgement: Judgement
  readonly ctx: JudgeContext
}

/**
 * The judge of one bash tool: `assess` and `grants` share the parser and a small cache.
 * `sandbox` is the tool's (absent: commands run directly, as with `off`).
 */
export function bashJudge(
  env: NodeJS.ProcessEnv | undefined,
  sandbox?: BashSandbox,
): {
  assess(call: BashCall, ctx: { readonly projectDir: string }): Promise<CallAssessment>
  grants: ToolGrants<BashCall>
} {
  const home = env?.HOME ?? homedir()
  let parser: ShellParser | undefined
  // The policy asks about the same call several times (assess, rules, options): parse it once.
  const cache = new Map<string, Analysis>()
  const analyse = (call: BashCall, projectDir: string): Analysis | undefined => {
    if (!parser) return undefined
    const key = JSON.stringify([projectDir, call.workdir ?? '', call.command])
    const known = cache.get(key)
    if (known) return known
    const cwd = startFolder(projectDir, call.workdir)
    const line = parseShellLine(parser, call.command, { home, cwd })
    const ctx = {
      projectDir,
      home,
      protectedReason: (path: string) =>
        protectedPathReason(projectDir, path, sandbox?.protectedPaths),
    }
    const judgement = judgeShellLine(line, ctx)
    if (cache.size >= 64) cache.delete(cache.keys().next().value ?? '')
    const analysis = { line, judgement, ctx }
    cache.set(key, analysis)
    return analysis
  }
  const patternsOf = (grants: readonly string[]): CommandPattern[] =>
    grants.flatMap((grant) => {
      const pattern = parsePattern(grant)
      return pattern ? [pattern] : []
    })

  return {
    async assess(call, { projectDir }) {
      parser ??= await loadShellParser()
      const analysis = analyse(call, projectDir)
      if (!analysis) return { level: 'confirm', reasons: ['the shell parser is not ready'] }
      const { level, reasons, grantable } = analysis.judgement
      // Read afresh each time (not cached): links on disk may have changed since.
      const uncontained = (await runsSandboxed(sandbox))
        ? []
        : uncontainedReasons(analysis.line, {
            ...analysis.ctx,
            leadsOutside: (path) => leadsOutside(projectDir, path),
            credentialAt: (path) => credentialAt(path, analysis.ctx.home),
          })
      return {
        level,
        reasons,
        grantable,
        ...(call.network === true ? { network: true } : {}),
        ...(uncontained.length > 0 ? { uncontained } : {}),
      }
    },
    grants: {
      options(call, { projectDir }) {
        const analysis = analyse(call, projectDir)
        if (!analysis) return undefined
        const choices = grantChoices(analysis.line, analysis.judgement)
        if (!choices) return undefined
        const general = choices.general.map(patternText).join('\n')
        const exact = choices.exact.map(patternText).join('\n')
        return general === exact ? [general] : [general, exact]
      },
      covers(grants, call, { projectDir }) {
        const analysis = analyse(call, projectDir)
        if (!analysis) return false
        return grantCovers(patternsOf(grants), analysis.line, analysis.judgement, { projectDir })
      },
      touches(grants, call, { projectDir }) {
        const analysis = analyse(call, projectDir)
        if (!analysis) return false
        return grantTouches(patternsOf(grants), analysis.line, { projectDir })
      },
    },
  }
}

/**
 * Whether commands of this tool run in the sandbox: never under `off`; always under `required`
 * (a command refused for want of one never runs bare); under `auto` when the probe, remembered
 * per process, says bubblewrap works.
 */
async function runsSandboxed(sandbox: BashSandbox | undefined): Promise<boolean> {
  if (!sandbox || sandbox.mode === 'off') return false
  if (sandbox.mode === 'required') return true
  return (await sandboxStatus(sandbox)).available
}

/**
 * Where `path` (inside the project) really leads, when a symlink on disk takes it out of the
 * project: the real path of the deepest part of it that exists. Undefined when that stays
 * inside, or when nothing of it exists (a path to be created is as its text says).
 */
/**
 * `path` in words when it is one of the home folder's credentials, or a folder that holds their
 * stores (the home folder itself, or `/`): what a command without a sandbox may not read unasked.
 */
function credentialAt(path: string, home: string): string | undefined {
  if (homeFileOf(path, undefined, home)?.kind === 'credential') return `${path}, a credential`
  const held = [...homePathsUnder(path, HOME_CREDENTIALS, home)].slice(0, 3)
  if (held.length === 0) return undefined
  return `${path}, which holds your credentials (${held.join(', ')}, …)`
}

function leadsOutside(projectDir: string, path: string): string | undefined {
  for (let at = path; at.startsWith(`${projectDir}/`); at = dirname(at)) {
    let real: string
    try {
      real = realpathSync(at)
    } catch {
      continue
    }
    return real === projectDir || real.startsWith(`${projectDir}/`) ? undefined : real
  }
  return undefined
}

/** Where the line starts: the project, or its workdir (unknown when the workdir is refused). */
function startFolder(projectDir: string, workdir: string | undefined): string {
  if (workdir === undefined) return projectDir
  try {
    return resolveInsideProject(projectDir, workdir)
  } catch {
    // The run refuses it (PATH_OUTSIDE_PROJECT); judge as if from the project meanwhile.
    return projectDir
  }
}
