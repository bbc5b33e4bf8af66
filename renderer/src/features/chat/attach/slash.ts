/**
 * The `/` command's model, with no React in it: whether the composer is being asked for a slash
 * command, which of the project's MCP prompts match what follows the `/` and in what order, what
 * the argument form must have before it is sent, and what the text becomes once the prompt is
 * filled in.
 *
 * A slash command is only ever the first word of the message (a `/` later on is a path or a
 * fraction, not a command). Ranking, best first: the prompt's own name starts with the query,
 * the command (`mcp__<server>__<prompt>`) starts with it, the name contains it, the command
 * contains it, the query's characters appear in the command in order (fuzzy). Within a rank, by
 * command, so the list is stable while the user types.
 */
import type { McpPromptView } from '../../../../../protocol/mcp'

/** Prompts shown at most, for the same reason as MAX_MATCHES for files. */
export const MAX_PROMPTS = 50

/** The `/word` that starts the text, while the caret is still in it. */
export interface SlashQuery {
  /** Index just past the word (the caret). */
  readonly end: number
  /** What follows the `/`. */
  readonly query: string
}

export function slashAt(text: string, caret: number): SlashQuery | undefined {
  const match = /^\/(\S*)$/.exec(text.slice(0, caret))
  if (!match) return undefined
  return { end: caret, query: match[1] ?? '' }
}

/** The prompts that match `query`, best first, at most `limit`. */
export function matchPrompts(
  prompts: readonly McpPromptView[],
  query: string,
  limit: number = MAX_PROMPTS,
): McpPromptView[] {
  const q = query.toLowerCase()
  const ranked: { prompt: McpPromptView; rank: number }[] = []
  for (const prompt of prompts) {
    const rank = rankOf(prompt, q)
    if (rank !== undefined) ranked.push({ prompt, rank })
  }
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      (a.prompt.command < b.prompt.command ? -1 : a.prompt.command > b.prompt.command ? 1 : 0),
  )
  return ranked.slice(0, limit).map((r) => r.prompt)
}

function rankOf(prompt: McpPromptView, query: string): number | undefined {
  if (query === '') return 0
  const name = prompt.name.toLowerCase()
  const command = prompt.command.replace(/^\//, '').toLowerCase()
  if (name.startsWith(query)) return 0
  if (command.startsWith(query)) return 1
  if (name.includes(query)) return 2
  if (command.includes(query)) return 3
  return isSubsequence(query, command) ? 4 : undefined
}

function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0
  for (const char of needle) {
    at = haystack.indexOf(char, at)
    if (at === -1) return false
    at++
  }
  return true
}

/** The text with the `/word` being typed replaced by the picked command and a space. */
export function applyCommand(text: string, slash: SlashQuery, command: string): string {
  return `${command} ${text.slice(slash.end).replace(/^\s/, '')}`
}

/**
 * The text once the prompt is filled in: `filled` in place of the command the text starts with,
 * and whatever the user wrote after it kept after it. Should the command be gone (edited away
 * while the prompt was fetched), `filled` goes first all the same.
 */
export function applyPrompt(text: string, command: string, filled: string): string {
  const rest = text.startsWith(command) ? text.slice(command.length).trim() : text.trim()
  return rest === '' ? filled : `${filled}\n\n${rest}`
}

/** The required arguments still empty (blank counts as empty), in the prompt's order. */
export function missingArguments(
  prompt: Pick<McpPromptView, 'arguments'>,
  values: Readonly<Record<string, string>>,
): string[] {
  return prompt.arguments
    .filter((a) => a.required && (values[a.name] ?? '').trim() === '')
    .map((a) => a.name)
}

/** What `mcp/prompt` is sent: the arguments given, blank optional ones left out. */
export function argumentsToSend(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ''))
}
