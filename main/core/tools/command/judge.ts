/**
 * `judgeShellLine`: every simple command of a parsed line (nested ones too) is judged on its
 * own; the strictest wins. Pure: paths are compared as text against the (realpath'd) project
 * folder; nothing on disk is read.
 */
import { codeFindings } from './rules/code.js'
import { destroyFindings } from './rules/destroy.js'
import type { Finding } from './rules/finding.js'
import { gitFindings } from './rules/git.js'
import { writeFindings } from './rules/writes.js'
import type {
  JudgeContext,
  JudgedPart,
  Judgement,
  Level,
  ShellLine,
  SimpleCommand,
} from './types.js'

const RANK: Record<Level, number> = { normal: 0, confirm: 1, refuse: 2 }

/**
 * `reasons` holds the reasons of the parts at the winning level (empty when that is `normal`);
 * `grantable` is true only when every part is normal and grantable. A line that cannot be
 * parsed is `confirm` with the parser's reason, and has no parts.
 */
export function judgeShellLine(line: ShellLine, ctx: JudgeContext): Judgement {
  if (!line.ok) {
    return {
      level: 'confirm',
      reasons: [`${line.reason}; it needs your approval`],
      grantable: false,
      parts: [],
    }
  }
  const parts = line.commands.map((cmd) => judgeCommand(cmd, ctx))
  const level = parts.reduce<Level>(
    (worst, p) => (RANK[p.level] > RANK[worst] ? p.level : worst),
    'normal',
  )
  const reasons =
    level === 'normal'
      ? []
      : unique(parts.filter((p) => p.level === level).flatMap((p) => p.reasons))
  return { level, reasons, grantable: level === 'normal' && parts.every((p) => p.grantable), parts }
}

export function judgeCommand(cmd: SimpleCommand, ctx: JudgeContext): JudgedPart {
  const findings: Finding[] = [
    ...destroyFindings(cmd, ctx),
    ...writeFindings(cmd, ctx),
    ...gitFindings(cmd),
    ...codeFindings(cmd),
  ]
  const level = findings.reduce<Level>(
    (worst, f) => (RANK[f.level] > RANK[worst] ? f.level : worst),
    'normal',
  )
  const shown =
    level === 'normal'
      ? findings.filter((f) => !f.grantable)
      : findings.filter((f) => f.level === level)
  return {
    text: cmd.text,
    level,
    reasons: unique(shown.map((f) => f.reason)),
    grantable: level === 'normal' && findings.every((f) => f.grantable),
  }
}

const unique = (items: readonly string[]) => [...new Set(items)]
