/**
 * How the programs that run other code take that code: `bash -c CODE`, `python3 -c CODE`,
 * `perl -ne CODE`, a script file, or standard input. The parser uses it to re-parse shell code;
 * the judge uses it to look at inline interpreter code.
 */
import { posix } from 'node:path'
import { parseArgs } from './args.js'
import type { SimpleCommand, Word } from './types.js'

/** The program's name without its folder (`/usr/bin/rm` is `rm`); undefined when not literal. */
export function programName(argv: readonly Word[]): string | undefined {
  const first = argv[0]
  if (first === undefined || !first.literal) return undefined
  return posix.basename(first.value)
}

export const programOf = (cmd: SimpleCommand) => programName(cmd.argv)

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish'])

export const isShell = (name: string | undefined) => name !== undefined && SHELLS.has(name)

export type CodeSource =
  | { readonly kind: 'inline'; readonly code: Word }
  | { readonly kind: 'stdin' }
  | { readonly kind: 'script'; readonly script: Word }
  | { readonly kind: 'module' }

/** Where a shell (`bash`, `sh`, `su`, …) takes the code it runs; undefined for other programs. */
export function shellCode(argv: readonly Word[]): CodeSource | undefined {
  const name = programName(argv)
  if (name === 'su') {
    const parsed = parseArgs(argv.slice(1), {
      values: ['-c', '--command', '-s', '--shell', '-g', '--group', '-G', '--supp-group'],
    })
    const code = parsed.options.find((o) => o.name === '-c' || o.name === '--command')?.value
    return code === undefined ? { kind: 'stdin' } : { kind: 'inline', code }
  }
  if (!isShell(name)) return undefined
  let inline = false
  let stdin = false
  let i = 1
  for (; i < argv.length; i++) {
    const word = argv[i]
    if (word === undefined || !word.literal) break
    const text = word.value
    if (text === '--' || text === '-') {
      i++
      break
    }
    if (text.startsWith('--')) {
      if (text === '--rcfile' || text === '--init-file') i++
      continue
    }
    if (!/^[-+][A-Za-z]/.test(text)) break
    const letters = text.slice(1)
    if (letters.includes('c')) inline = true
    if (letters.includes('s')) stdin = true
    // `-o pipefail`, `+O extglob`: the option's name is the next word.
    if (/[oO]/.test(letters)) i++
  }
  const operand = argv[i]
  if (inline) return operand === undefined ? undefined : { kind: 'inline', code: operand }
  if (stdin || operand === undefined) return { kind: 'stdin' }
  return { kind: 'script', script: operand }
}

/** Interpreters whose inline code the judge reads, by the name the program is run with. */
export function interpreterKind(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  if (/^python(\d+(\.\d+)*)?$/.test(name) || /^pypy\d*$/.test(name)) return 'python'
  if (/^(node|nodejs|perl|ruby|php|deno|bun)$/.test(name)) return name === 'nodejs' ? 'node' : name
  return undefined
}

/** Where an interpreter takes its code; undefined when `argv` is not an interpreter. */
export function interpreterCode(argv: readonly Word[]): CodeSource | undefined {
  const kind = interpreterKind(programName(argv))
  const args = argv.slice(1)
  switch (kind) {
    case 'python':
      return pythonCode(args)
    case 'node':
    case 'bun':
      return nodeCode(args)
    case 'perl':
    case 'ruby':
      return perlCode(args, kind)
    case 'php':
      return phpCode(args)
    case 'deno':
      return denoCode(args)
    default:
      return undefined
  }
}

const joinCode = (words: readonly Word[]): Word => ({
  value: words.map((w) => w.value).join('\n'),
  literal: words.every((w) => w.literal),
  glob: false,
  prefix: words.every((w) => w.literal) ? words.map((w) => w.value).join('\n') : '',
})

function fromOperands(operands: readonly Word[]): CodeSource {
  const first = operands[0]
  if (first === undefined || (first.literal && first.value === '-')) return { kind: 'stdin' }
  return { kind: 'script', script: first }
}

function pythonCode(args: readonly Word[]): CodeSource {
  const parsed = parseArgs(args, {
    values: ['-c', '-m', '-W', '-X', '--check-hash-based-pycs'],
    stopAtOperand: true,
  })
  const code = parsed.options.find((o) => o.name === '-c')?.value
  if (code !== undefined) return { kind: 'inline', code }
  if (parsed.options.some((o) => o.name === '-m')) return { kind: 'module' }
  return fromOperands(parsed.rest)
}

function nodeCode(args: readonly Word[]): CodeSource {
  // `-pe CODE` is node's spelling of `--print --eval CODE`.
  const normal = args.map((w) =>
    w.literal && (w.value === '-pe' || w.value === '-ep') ? { ...w, value: '-e', prefix: '-e' } : w,
  )
  const parsed = parseArgs(normal, {
    values: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader'],
    stopAtOperand: true,
  })
  const codes = parsed.options
    .filter((o) => ['-e', '--eval', '-p', '--print'].includes(o.name))
    .flatMap((o) => (o.value === undefined ? [] : [o.value]))
  if (codes.length > 0) return { kind: 'inline', code: joinCode(codes) }
  // `bun run x`, `bun test`: a subcommand, not inline code.
  return fromOperands(parsed.rest)
}

/** perl and ruby: `-e CODE` (or `-ne CODE`), repeatable; `-i`, `-l`, `-0` take attached values. */
function perlCode(args: readonly Word[], kind: 'perl' | 'ruby'): CodeSource {
  const codes: Word[] = []
  const nextTakes = kind === 'perl' ? 'IMm' : 'IrCEx'
  const attachedOnly = kind === 'perl' ? 'il0xCdD' : 'iK0lTW'
  let i = 0
  for (; i < args.length; i++) {
    const word = args[i]
    if (word === undefined || !word.literal || !word.value.startsWith('-') || word.value === '-')
      break
    if (word.value === '--') {
      i++
      break
    }
    const text = word.value
    for (let c = 1; c < text.length; c++) {
      const letter = text[c] ?? ''
      const attached = text.slice(c + 1)
      if (letter === 'e' || letter === 'E') {
        const code = attached !== '' ? { ...word, value: attached, prefix: attached } : args[++i]
        if (code !== undefined) codes.push(code)
        break
      }
      if (nextTakes.includes(letter)) {
        if (attached === '') i++
        break
      }
      if (attachedOnly.includes(letter)) break
    }
  }
  if (codes.length > 0) return { kind: 'inline', code: joinCode(codes) }
  return fromOperands(args.slice(i))
}

function phpCode(args: readonly Word[]): CodeSource {
  const parsed = parseArgs(args, {
    values: ['-r', '-R', '-B', '-E', '-F', '-f', '-c', '-d', '-z', '-t'],
    stopAtOperand: true,
  })
  const codes = parsed.options
    .filter((o) => ['-r', '-R', '-B', '-E'].includes(o.name))
    .flatMap((o) => (o.value === undefined ? [] : [o.value]))
  if (codes.length > 0) return { kind: 'inline', code: joinCode(codes) }
  const file = parsed.options.find((o) => o.name === '-f' || o.name === '-F')?.value
  return file === undefined ? fromOperands(parsed.rest) : { kind: 'script', script: file }
}

function denoCode(args: readonly Word[]): CodeSource {
  const parsed = parseArgs(args, { stopAtOperand: true })
  const [sub, ...rest] = parsed.rest
  if (sub?.literal === true && sub.value === 'eval') {
    const code = parseArgs(rest, { values: ['--ext'] }).operands[0]
    return code === undefined ? { kind: 'stdin' } : { kind: 'inline', code }
  }
  return sub === undefined ? { kind: 'stdin' } : { kind: 'module' }
}
