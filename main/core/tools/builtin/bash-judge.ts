/**
 * How the `bash` tool judges its calls: the command line is parsed with bash's grammar
 * (`../command/`), each simple command judged on its parsed argv (a destructive command, a write
 * outside the project or to a protected path), and standing grants are patterns on that argv,
 * never a text prefix. The parser loads once (WebAssembly); `assess` waits for it, and the grant
 * hooks, which the approval policy calls only after `assess`, use it as loaded.
 */
import { homedir } from 'node:os'
import {
  grantChoices,
  grantCovers,
  grantTouches,
  judgeShellLine,
  loadShellParser,
  parsePattern,
  parseShellLine,
  patternText,
} from '../command/index.js'
import type { CommandPattern, Judgement, ShellLine, ShellParser } from '../command/index.js'
import { protectedPathReason } from '../protected-paths.js'
import type { CallAssessment, ToolGrants } from '../types.js'
import { resolveInsideProject } from '../../workspace/paths.js'

export interface BashCall {
  readonly command: string
  readonly workdir?: string | undefined
  readonly network?: boolean | undefined
}

interface Analysis {
  readonly line: ShellLine
  readonly judgement: Judgement
}

/** The judge of one bash tool: `assess` and `grants` share the parser and a small cache. */
export function bashJudge(env: NodeJS.ProcessEnv | undefined): {
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
    const judgement = judgeShellLine(line, {
      projectDir,
      home,
      protectedReason: (path) => protectedPathReason(projectDir, path),
    })
    if (cache.size >= 64) cache.delete(cache.keys().next().value ?? '')
    const analysis = { line, judgement }
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
      return { level, reasons, grantable, ...(call.network === true ? { network: true } : {}) }
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
