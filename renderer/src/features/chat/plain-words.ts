/**
 * Words for people in place of the log's codes and terms: what the chat shows first, with the
 * code kept in the details for whoever reports a bug. Pure, so unit-tested
 * (test/renderer/plain-words.test.ts).
 */
import { toolErrorText } from './format'

/** The label of what the harness added to the conversation (date, git state). */
export const CONTEXT_LABEL = 'What Bridle told the model about your project'
/** The label of what the harness told the model about its own last reply. */
export const NOTICE_LABEL = 'What Bridle told the model about its last reply'

const SENTENCES: Readonly<Record<string, string>> = {
  ABORTED_BEFORE_DISPATCH: 'Stopped before it ran.',
  ABORTED: 'Stopped while it ran.',
  CANCELLED: 'Stopped.',
  APPROVAL_DENIED: 'You said no to this.',
  TOOL_OUTCOME_UNKNOWN: 'Bridle stopped while this ran; whether it had its effect is unknown.',
  TOOL_NOT_STARTED: 'This never started.',
  INVALID_ARGUMENTS: 'The model called this with arguments that do not fit; it was told why.',
  UNKNOWN_TOOL: 'The model asked for a tool Bridle does not have.',
  REQUEST_REJECTED: 'The model server refused the request.',
  LOOP_FAILED: 'Bridle failed while running the turn.',
}

/** A plain sentence for a code, or undefined when there is none (the message then says it). */
export function codeSentence(code: string): string | undefined {
  return SENTENCES[code] ?? toolErrorText(code)
}

/** The lead of a notice about MCP servers, in words; undefined for other notices. */
export function mcpNoticeLead(code: string): string | undefined {
  switch (code) {
    case 'MCP_SERVER_FAILED':
      return 'Going on without an MCP server.'
    case 'MCP_PROJECT_UNTRUSTED':
      return 'MCP servers are waiting for your trust.'
    default:
      return undefined
  }
}

/** The line over what a fork or a crash closed in the log. */
export function recoveredText(cause: string, count: number): string {
  const steps = count === 1 ? 'the unfinished step was closed' : 'the unfinished steps were closed'
  return cause === 'crash'
    ? `Bridle stopped unexpectedly in this turn; ${steps}`
    : `This branch starts mid-turn; ${steps}`
}
