/**
 * Reads a `find` command line: where it starts, whether its tests narrow what it acts on, and
 * what it does to each match (`-delete`, `-exec CMD {} ;`, `-fprint FILE`). `find . -delete`
 * deletes the project; `find . -name '*.o' -delete` does not, and the judge must tell them apart.
 */
import type { Word } from './types.js'

export interface FindPlan {
  /** The starting points (`.` when none are given). */
  readonly roots: readonly Word[]
  /**
   * True when a test limits the matches to some names, times or sizes, with no `-o` or `!`
   * that could widen them again. Type tests (`-type f`) do not narrow: all files is still all.
   */
  readonly narrowed: boolean
  readonly deletes: boolean
  /** Each `-exec`, `-execdir`, `-ok`, `-okdir` command; `inFolder` for the `…dir` forms. */
  readonly execs: readonly { readonly argv: readonly Word[]; readonly inFolder: boolean }[]
  /** Files written by `-fprint`, `-fprint0`, `-fprintf`, `-fls`. */
  readonly writes: readonly Word[]
}

const GLOBAL_OPTIONS = new Set(['-H', '-L', '-P'])
const GLOBAL_WITH_VALUE = new Set(['-D'])
const NARROWING = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-lname',
  '-ilname',
  '-newer',
  '-anewer',
  '-cnewer',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-size',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-perm',
  '-inum',
  '-samefile',
  '-links',
  '-empty',
  '-newerXY',
  '-used',
])
const WIDENING = new Set(['-o', '-or', '!', '-not', ','])
const EXECS = new Set(['-exec', '-execdir', '-ok', '-okdir'])
const WRITES_FILE = new Set(['-fprint', '-fprint0', '-fls'])

/** The `{}` of `-exec`: whatever find found, judged with the `find`, not as a path of its own. */
export const FOUND: Word = { value: '{}', literal: false, glob: false, prefix: '', found: true }

export function planFind(args: readonly Word[]): FindPlan {
  let i = 0
  while (i < args.length) {
    const text = args[i]?.value ?? ''
    if (GLOBAL_OPTIONS.has(text) || /^-O\d$/.test(text)) i++
    else if (GLOBAL_WITH_VALUE.has(text)) i += 2
    else break
  }
  const roots: Word[] = []
  for (; i < args.length; i++) {
    const word = args[i]
    if (word === undefined) break
    if (word.literal && /^[-(!),]/.test(word.value) && word.value !== '-') break
    roots.push(word)
  }
  let narrowing = false
  let widened = false
  let deletes = false
  const execs: { argv: Word[]; inFolder: boolean }[] = []
  const writes: Word[] = []
  for (; i < args.length; i++) {
    const word = args[i]
    if (word === undefined) break
    const text = word.literal ? word.value : ''
    if (WIDENING.has(text)) widened = true
    else if (NARROWING.has(text) || /^-newer[amcBt][amcBt]$/.test(text)) narrowing = true
    else if (text === '-delete') deletes = true
    else if (WRITES_FILE.has(text) || text === '-fprintf') {
      const file = args[i + 1]
      if (file !== undefined) writes.push(file)
      i += text === '-fprintf' ? 2 : 1
    } else if (EXECS.has(text)) {
      const argv: Word[] = []
      for (i++; i < args.length; i++) {
        const part = args[i]
        if (part === undefined) break
        if (part.literal && (part.value === ';' || (part.value === '+' && argv.length > 0))) break
        argv.push(part.literal && part.value.includes('{}') ? replaceFound(part) : part)
      }
      execs.push({ argv, inFolder: text.endsWith('dir') })
    }
  }
  return {
    roots: roots.length > 0 ? roots : [{ value: '.', literal: true, glob: false, prefix: '.' }],
    narrowed: narrowing && !widened,
    deletes,
    execs,
    writes,
  }
}

/** `{}` alone stands for each match; `{}.bak` for a name made from one (still unknown). */
function replaceFound(word: Word): Word {
  if (word.value === '{}') return FOUND
  const at = word.value.indexOf('{}')
  return { value: word.value, literal: false, glob: false, prefix: word.value.slice(0, at) }
}
