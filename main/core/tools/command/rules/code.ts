/**
 * Commands that run code the judge cannot see as commands: inline interpreter code, shell code
 * only known at run time, scripts piped in from the network, another user's rights. Literal
 * shell code (`bash -c '…'`, `eval '…'`) is not judged here: the parser re-reads it, and its
 * commands are judged like any other.
 */
import { interpreterCode, interpreterKind, programOf, shellCode } from '../programs.js'
import type { CodeSource } from '../programs.js'
import type { SimpleCommand, Word } from '../types.js'
import { confirm, quoted, ungrantable } from './finding.js'
import type { Finding } from './finding.js'

const PRIVILEGED = new Set(['sudo', 'doas', 'su', 'chroot', 'pkexec', 'runuser'])
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'aria2c'])

/**
 * Words in inline code that mean it deletes files or runs programs. Matching words is crude on
 * purpose: such code needs a person's eyes either way, and a false alarm only asks.
 */
const RISKY =
  /\b(rmtree|remove|unlink|rmSync|rmdir|rm_r|system|popen|subprocess|child_process|spawn|exec|shell_exec|passthru|proc_open|FileUtils|File\.delete)|\brm\s*\(|\brm\s+-/
/** Backticks run a shell command in perl, ruby and php (in JavaScript they are only strings). */
const BACKTICK_RUNS = new Set(['perl', 'ruby', 'php'])
const AWK_RUNS = /\bsystem\s*\(|\|\s*&?\s*"|"\s*\|\s*getline/

export function codeFindings(cmd: SimpleCommand): Finding[] {
  const q = quoted(cmd.text)
  const out: Finding[] = []
  const program = programOf(cmd)
  const privileged =
    cmd.wrappers.find((w) => PRIVILEGED.has(w)) ??
    (PRIVILEGED.has(program ?? '') ? program : undefined)
  if (privileged !== undefined)
    out.push(confirm(`${q} runs with another user's rights (${privileged})`))
  const first = cmd.argv[0]
  if (first !== undefined && !first.literal) {
    out.push(confirm(`${q} runs a program only known when it runs (${first.value})`))
    return out
  }
  if (program === undefined) return out
  const shell = shellCode(cmd.argv)
  if (shell !== undefined) out.push(...shellFindings(cmd, q, shell))
  if (
    ['eval', 'watch', 'env', 'trap'].includes(program) &&
    cmd.argv.slice(1).some((w) => !w.literal)
  ) {
    out.push(confirm(`${q} runs shell code only known when it runs`))
  }
  if (
    (program === 'source' || program === '.') &&
    cmd.argv[1] !== undefined &&
    producedByCommand(cmd.argv[1])
  ) {
    out.push(confirm(`${q} runs a script that another command produces`))
  }
  const code = interpreterCode(cmd.argv)
  if (code !== undefined) out.push(...interpreterFindings(cmd, q, code))
  if (/^[gmn]?awk$/.test(program)) {
    const script = cmd.argv.slice(1).find((w) => !w.value.startsWith('-'))
    if (script !== undefined && AWK_RUNS.test(script.value))
      out.push(confirm(`${q} runs awk code that starts other programs`))
  }
  return out
}

function shellFindings(cmd: SimpleCommand, q: string, source: CodeSource): Finding[] {
  switch (source.kind) {
    case 'inline':
      return source.code.literal ? [] : [confirm(`${q} runs shell code only known when it runs`)]
    case 'stdin':
      return fromPipe(cmd, q, 'shell code')
    case 'script':
      return producedByCommand(source.script)
        ? [confirm(`${q} runs a script that another command produces`)]
        : []
    case 'module':
      return []
  }
}

function interpreterFindings(cmd: SimpleCommand, q: string, source: CodeSource): Finding[] {
  const kind = interpreterKind(programOf(cmd)) ?? ''
  switch (source.kind) {
    case 'inline':
      return inlineFindings(q, kind, source.code.value)
    case 'stdin':
      return cmd.input === undefined ? fromPipe(cmd, q, 'code') : inlineFindings(q, kind, cmd.input)
    case 'script':
      return producedByCommand(source.script)
        ? [confirm(`${q} runs a script that another command produces`)]
        : []
    case 'module':
      return []
  }
}

function inlineFindings(q: string, kind: string, code: string): Finding[] {
  const risky =
    RISKY.exec(code)?.[0] ?? (BACKTICK_RUNS.has(kind) && code.includes('`') ? '`…`' : undefined)
  if (risky !== undefined) {
    return [
      confirm(
        `${q} runs inline code that may delete files or start programs (it uses ${risky.trim()})`,
      ),
    ]
  }
  return [ungrantable(`${q} runs inline code; no standing grant covers that`)]
}

/** Code read from a pipe: from the network it needs approval; from elsewhere no grant covers it. */
function fromPipe(cmd: SimpleCommand, q: string, what: string): Finding[] {
  if (cmd.input !== undefined || cmd.pipedFrom.length === 0) return []
  const downloader = cmd.pipedFrom.find((p) => DOWNLOADERS.has(p))
  if (downloader !== undefined)
    return [confirm(`${q} runs ${what} downloaded from the network (${downloader})`)]
  return [confirm(`${q} runs ${what} that another command prints (${cmd.pipedFrom.join(' | ')})`)]
}

const producedByCommand = (word: Word) => !word.literal && /\$\(|`|<\(/.test(word.value)
