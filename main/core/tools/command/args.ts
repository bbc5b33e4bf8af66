/**
 * Splits a program's arguments into options and operands the way getopt does, so a rule can ask
 * "is -r among the options?" and "what are the targets?" without being fooled by clusters
 * (`-Rf`), attached values (`-ofile`), `--long=value` or `--`. Each program says which options
 * take a value; that is all getopt needs to know to find where operands start.
 */
import type { Word } from './types.js'

export interface Option {
  /** `-r` for a short option (one per letter of a cluster), `--recursive` for a long one. */
  readonly name: string
  readonly value?: Word
}

export interface ParsedArgs {
  readonly options: readonly Option[]
  readonly operands: readonly Word[]
  /** With `stopAtOperand`: the words from the first operand on (a wrapped command and its args). */
  readonly rest: readonly Word[]
}

export interface ArgSpec {
  /** Options that take a value: `-u`, `--user`. A long one also matches its unique prefixes. */
  readonly values?: readonly string[]
  /** POSIX style: the first operand ends the options (wrappers: `sudo -u x rm -r`). */
  readonly stopAtOperand?: boolean
  /** `-5` or `-n5`-style numbers are options (`nice -10`, `head -20`), not operands. */
  readonly numericOptions?: boolean
}

const literalWord = (value: string): Word => ({ value, literal: true, glob: false, prefix: value })

/** getopt_long over words. A non-literal word is an operand: its dashes are not known yet. */
export function parseArgs(words: readonly Word[], spec: ArgSpec = {}): ParsedArgs {
  const values = spec.values ?? []
  const takesValue = (name: string) =>
    values.includes(name) ||
    (name.startsWith('--') && name.length > 3 && values.some((v) => v.startsWith(name)))
  const options: Option[] = []
  const operands: Word[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (word === undefined) break
    const text = word.value
    if (!word.literal || text === '-' || !text.startsWith('-')) {
      if (spec.stopAtOperand === true) return { options, operands, rest: words.slice(i) }
      operands.push(word)
      continue
    }
    if (text === '--') {
      const after = words.slice(i + 1)
      if (spec.stopAtOperand === true) return { options, operands, rest: after }
      operands.push(...after)
      break
    }
    if (spec.numericOptions === true && /^-\d+$/.test(text)) {
      options.push({ name: text })
      continue
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=')
      const name = eq < 0 ? text : text.slice(0, eq)
      if (eq >= 0) options.push({ name, value: literalWord(text.slice(eq + 1)) })
      else if (takesValue(name) && i + 1 < words.length) {
        const value = words[++i]
        options.push(value === undefined ? { name } : { name, value })
      } else options.push({ name })
      continue
    }
    // A cluster: each letter is an option until one takes a value (the rest, or the next word).
    for (let c = 1; c < text.length; c++) {
      const name = `-${text[c] ?? ''}`
      if (!takesValue(name)) {
        options.push({ name })
        continue
      }
      const attached = text.slice(c + 1)
      if (attached !== '') options.push({ name, value: literalWord(attached) })
      else {
        const value = words[i + 1]
        if (value !== undefined) i++
        options.push(value === undefined ? { name } : { name, value })
      }
      break
    }
  }
  return { options, operands, rest: [] }
}

/** Whether an option named `short` or a long option (or its prefix of 3+ letters) was given. */
export function hasOption(
  parsed: ParsedArgs,
  short: readonly string[],
  long: readonly string[] = [],
): boolean {
  return parsed.options.some((o) => short.includes(o.name) || long.some((l) => isLong(o.name, l)))
}

/** The values of every occurrence of the named options, in order. */
export function optionValues(
  parsed: ParsedArgs,
  short: readonly string[],
  long: readonly string[] = [],
): Word[] {
  return parsed.options
    .filter((o) => short.includes(o.name) || long.some((l) => isLong(o.name, l)))
    .flatMap((o) => (o.value === undefined ? [] : [o.value]))
}

/**
 * GNU tools accept any unambiguous prefix of a long option (`--recur` for `--recursive`). A
 * prefix of three letters or more counts here: wrongly counting an ambiguous one only makes the
 * judge stricter, and getopt refuses ambiguous ones anyway.
 */
export function isLong(given: string, full: string): boolean {
  return given === full || (given.length >= 5 && full.startsWith(given))
}
