import type { Tool } from './types.js'

/** A guard can only deny (with a reason) or abstain; no guard can overturn another's denial. */
export type Guard = (call: {
  readonly tool: Tool
  readonly args: unknown
  readonly projectDir: string
}) => string | undefined

/**
 * Commands that destroy work in a way no undo brings back, denied in every approval mode unless
 * a rule explicitly allows that command. Matching is on the normalised command text; it is a
 * safety net against a model's mistakes, not a sandbox against an adversary.
 */
const DESTRUCTIVE: { readonly pattern: RegExp; readonly why: string }[] = [
  {
    pattern:
      /\brm\s+(-[a-z]*r[a-z]*f|-[a-z]*f[a-z]*r|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)[a-z-]*\s+(\/|~|\$HOME|\.|\.\/|\*|\/\*|~\/\*?)(\s|$|;|&)/,
    why: 'it would delete the project, the home folder or the whole disk',
  },
  {
    pattern:
      /\bgit\s+clean\s+-[a-z]*f[a-z]*d[a-z]*x|\bgit\s+clean\s+-[a-z]*x[a-z]*d[a-z]*f|\bgit\s+clean\s+-fdx\b/,
    why: 'it deletes every untracked and ignored file',
  },
  { pattern: /\bgit\s+reset\s+--hard\b/, why: 'it throws away uncommitted work' },
  { pattern: /\bgit\s+push\s+(.*\s)?(--force|-f)\b/, why: 'it rewrites shared history' },
  { pattern: /\bmkfs(\.\w+)?\b|\bdd\s+.*\bof=\/dev\//, why: 'it overwrites a disk' },
  { pattern: /:\(\)\s*\{\s*:\|:&\s*\};:/, why: 'it is a fork bomb' },
]

/**
 * `allowedPrefixes(tool)` lists the prefixes of the tool's allow rules. Only a rule that itself
 * names a destructive command (`git reset --hard`) and covers this whole command unlocks it; a
 * rule for `git push` does not unlock `git push --force`.
 */
export function destructiveCommandGuard(
  allowedPrefixes: (tool: string) => readonly string[],
): Guard {
  return ({ tool, args }) => {
    if (tool.kind !== 'execute') return undefined
    const command =
      typeof (args as { command?: unknown }).command === 'string'
        ? (args as { command: string }).command
        : ''
    const normalised = command.replace(/\s+/g, ' ').trim()
    for (const { pattern, why } of DESTRUCTIVE) {
      if (!pattern.test(normalised)) continue
      const unlocked = allowedPrefixes(tool.name).some(
        (prefix) =>
          pattern.test(prefix) && (normalised === prefix || normalised.startsWith(`${prefix} `)),
      )
      if (unlocked) return undefined
      return `"${normalised}" was refused: ${why}. This is denied in every approval mode; the user can allow it explicitly.`
    }
    return undefined
  }
}

/** Runs every guard; the first denial stands (all guards run, none can undo a denial). */
export function checkGuards(
  guards: readonly Guard[],
  call: Parameters<Guard>[0],
): string | undefined {
  let denial: string | undefined
  for (const guard of guards) {
    let verdict: string | undefined
    try {
      verdict = guard(call)
    } catch (error) {
      // A guard that fails cannot vouch for the call: treat it as a denial.
      verdict = `a safety check failed (${error instanceof Error ? error.message : String(error)})`
    }
    denial ??= verdict
  }
  return denial
}
