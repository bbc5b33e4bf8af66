/**
 * What one rule says about one command. A rule that has nothing to say returns no finding;
 * the command is then `normal` and grantable.
 */
import type { Level } from '../types.js'

export interface Finding {
  readonly level: Level
  /** Why, in words a person understands, naming the command. */
  readonly reason: string
  /** Only for `normal`: false when no standing grant may cover it (a recursive delete). */
  readonly grantable: boolean
}

export const refuse = (reason: string): Finding => ({ level: 'refuse', reason, grantable: false })
export const confirm = (reason: string): Finding => ({ level: 'confirm', reason, grantable: false })
/** Runs as the approval mode says, but is never covered by an "always allow". */
export const ungrantable = (reason: string): Finding => ({
  level: 'normal',
  reason,
  grantable: false,
})

/** The command as quoted in a reason: one line, at most 80 characters. */
export function quoted(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return `\`${line.length > 80 ? `${line.slice(0, 79)}…` : line}\``
}
