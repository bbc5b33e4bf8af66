/**
 * Shell command lines read with bash's grammar (tree-sitter-bash) and judged: which simple
 * commands a line runs, where, and whether they may run (see README.md).
 */
export { loadShellParser } from './parser.js'
export type { ShellParser } from './parser.js'
export { MAX_LINE_CHARS, parseShellLine } from './line.js'
export type { LineEnv } from './line.js'
export { MAX_DEPTH } from './walk.js'
export { judgeShellLine } from './judge.js'
export { uncontainedReasons } from './contained.js'
export { grantChoices, grantCovers, grantTouches } from './grants.js'
export type { GrantChoices } from './grants.js'
export { parsePattern, patternText, shellQuote } from './pattern-text.js'
export type { CommandPattern } from './pattern-text.js'
export type {
  Assignment,
  Folder,
  JudgeContext,
  JudgedPart,
  Judgement,
  Level,
  Redirect,
  ShellLine,
  SimpleCommand,
  Word,
} from './types.js'
