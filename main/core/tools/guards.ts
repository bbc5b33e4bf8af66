import type { Tool } from './types.js'

/**
 * A guard can only deny (with a reason) or abstain; no guard can overturn another's denial.
 * Plugins add guards; what a call itself would do (a destructive command, a protected path) is
 * the tool's own `assess`, judged with the approval (approvals.ts).
 */
export type Guard = (call: {
  readonly tool: Tool
  readonly args: unknown
  readonly projectDir: string
}) => string | undefined

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
