/**
 * `grep`'s results: hits from either backend collected in file order, where to stop, and the
 * output the model reads, so both backends stop at the same point and print alike.
 */

/** Longer lines are cut for the model (minified files would otherwise flood the output). */
export const MAX_LINE_CHARS = 500

export type OutputMode = 'content' | 'files' | 'count'

/** What of the query the output names when nothing matched. */
export interface ResultsQuery {
  readonly pattern: string
  readonly path?: string | undefined
  readonly glob?: string | undefined
}

export interface Line {
  readonly n: number
  readonly text: string
  readonly isMatch: boolean
}

interface FileHits {
  readonly path: string
  readonly lines: Line[]
  matches: number
}

/**
 * Collects hits from either backend in file order and decides where to stop, so both stop at
 * the same point: after `max` matching lines (content) or files (files, count), at the next
 * match past the cap. Context lines are kept only around matches, whoever sends them.
 */
export class Results {
  readonly files: FileHits[] = []
  isDone = false
  isTruncated = false
  private total = 0
  private current: FileHits | undefined
  private pending: Line[] = []
  private lastMatch: number | undefined

  constructor(
    private readonly mode: OutputMode,
    private readonly context: number,
    private readonly max: number,
  ) {}

  beginFile(path: string): void {
    this.current = { path, lines: [], matches: 0 }
    this.pending = []
    this.lastMatch = undefined
  }

  /** False once nothing more of the current file can change the result. */
  wantsMoreOfFile(): boolean {
    return !this.isDone && !(this.mode === 'files' && (this.current?.matches ?? 0) > 0)
  }

  /** Lines must come in increasing order; a backend may skip lines that are not context. */
  addLine(n: number, raw: string, isMatch: boolean): void {
    const file = this.current
    if (file === undefined || !this.wantsMoreOfFile()) return
    const line = { n, text: displayText(raw), isMatch }
    if (isMatch) {
      if (this.mode === 'content' || file.matches === 0) {
        if (this.total >= this.max) {
          this.isTruncated = true
          this.isDone = true
          return
        }
        this.total++
      }
      if (file.matches === 0) this.files.push(file)
      file.matches++
      if (this.mode !== 'content') return
      file.lines.push(...this.pending.filter((before) => before.n >= n - this.context), line)
      this.pending = []
      this.lastMatch = n
    } else if (this.mode === 'content' && this.context > 0) {
      if (this.lastMatch !== undefined && n <= this.lastMatch + this.context) {
        file.lines.push(line)
      } else {
        this.pending.push(line)
        if (this.pending.length > this.context) this.pending.shift()
      }
    }
  }

  endFile(): void {
    this.current = undefined
    this.pending = []
  }

  format(args: ResultsQuery, isWalkTruncated: boolean): string {
    const out: string[] = []
    if (this.files.length === 0) {
      const where = args.path ?? 'the project folder'
      const only = args.glob === undefined ? '' : ` (files matching ${args.glob})`
      out.push(`No matches for /${args.pattern}/ in ${where}${only}`)
    }
    for (const file of this.files) {
      if (this.mode === 'files') out.push(file.path)
      else if (this.mode === 'count') out.push(`${file.path}:${file.matches}`)
      else {
        let previous: number | undefined
        for (const line of file.lines) {
          const isGap = previous === undefined ? out.length > 0 : line.n !== previous + 1
          if (this.context > 0 && isGap) out.push('--')
          out.push(
            `${file.path}${line.isMatch ? ':' : '-'}${line.n}${line.isMatch ? ':' : '-'}${line.text}`,
          )
          previous = line.n
        }
      }
    }
    if (this.isTruncated) {
      const what = this.mode === 'content' ? 'matching lines' : 'files'
      out.push(
        `[Stopped after ${this.max} ${what}; there are more. Narrow the search with a more specific pattern, a path or a glob${this.mode === 'content' ? ', try outputMode "files" or "count",' : ''} or raise maxResults.]`,
      )
    }
    if (isWalkTruncated) {
      out.push('[The search stopped after looking at too many files; give a path to search less.]')
    }
    return out.join('\n')
  }
}

/** The line without its terminator, cut at MAX_LINE_CHARS (never inside a surrogate pair). */
function displayText(raw: string): string {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
  if (line.length <= MAX_LINE_CHARS) return line
  const isSplitPair = /[\uD800-\uDBFF]/.test(line.charAt(MAX_LINE_CHARS - 1))
  const cut = line.slice(0, isSplitPair ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS)
  return `${cut} [… line cut at ${MAX_LINE_CHARS} characters]`
}
