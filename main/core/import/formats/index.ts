import { claudeCodeFormat } from './claude-code.js'
import { codexFormat } from './codex.js'
import { deepseekHarnessFormat } from './deepseek-harness.js'
import { piFormat } from './pi.js'
import type { SourceFormat } from './records.js'

/** Every other tool's format Bridle reads, in the order detection tries them. */
export const FORMATS: readonly SourceFormat[] = [
  codexFormat,
  deepseekHarnessFormat,
  piFormat,
  claudeCodeFormat,
]

export { parseRecords, toRecords } from './records.js'
export type { SessionSummary, SourceFormat, SourceRecord } from './records.js'
