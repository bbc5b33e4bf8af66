#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { resolveHome } from '../core/host/home.js'
import { UsageError } from './commands/command.js'
import type { CliCommand } from './commands/command.js'
import { COMMANDS } from './commands/index.js'
import { OPTIONS } from './commands/options.js'
import { writeErr, writeOut } from './terminal.js'

const HELP_HEAD = `Bridle: a desktop agent harness whose event log is the truth.

Usage: bridle <command> [options]

Commands:
`

const HELP_TAIL = `
Options for every command:
  --home DIR                The data folder (default: $BRIDLE_HOME, else ~/.bridle).
  -h, --help                Print this help.
  -v, --version             Print the version.

Examples:
  bridle run --base-url http://127.0.0.1:11434/v1 --model qwen3:8b "what does this repo do?"
  bridle info
  bridle serve --port 0
  bridle export 3f2a... --out session.jsonl
  bridle import session.jsonl
`

/** Where the help's descriptions start, and the column their lines end by. */
const HELP_COLUMN = 28
const HELP_WIDTH = 95

/**
 * The `bridle` entry: splits the command line, finds the command in the table of `commands/`,
 * loads its module and the shared context (`context.ts`) together, runs it, and turns what it
 * ends with into an exit code. The help is generated from the same table, and loads neither.
 */
async function main(argv: string[]): Promise<number> {
  absoluteHomeVariable(process.env)
  const { values, positionals } = parseCommandLine(argv)
  // `bridle --version` names no command: asked before the help, which no command means.
  if (values.version) {
    writeOut(`${readVersion()}\n`)
    return 0
  }
  const name = positionals[0] ?? 'help'
  if (values.help || name === 'help') {
    writeOut(helpText())
    return 0
  }
  if (values.home?.trim() === '') throw new UsageError('--home needs a folder')
  const home = resolve(values.home ?? resolveHome(process.env))
  const command = findCommand(name)
  if (command === undefined) throw unknownCommand(name)
  const [{ run }, { commandContext }] = await Promise.all([command.load(), import('./context.js')])
  return await run(
    { positionals: positionals.slice(1), values },
    commandContext(home, readVersion()),
  )
}

/**
 * The options and words of the command line. An option unknown to every command is a usage
 * error, unless the command itself is unknown: then that is the error, said first.
 */
function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS })
  } catch (error) {
    const name = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS })
      .positionals[0]
    if (name !== undefined && name !== 'help' && findCommand(name) === undefined)
      throw unknownCommand(name)
    throw error
  }
}

function findCommand(name: string): CliCommand | undefined {
  return COMMANDS.find((entry) => entry.name === name || entry.aliases?.includes(name))
}

function unknownCommand(name: string): UsageError {
  const names = COMMANDS.map((entry) => entry.name).join(', ')
  return new UsageError(`unknown command "${name}"; the commands are ${names}`)
}

/**
 * A relative `HOME` is taken against the current folder, once, here: the sandbox, the data
 * folder's default and the tools' home checks all need an absolute one.
 */
function absoluteHomeVariable(env: NodeJS.ProcessEnv): void {
  const home = env['HOME']
  if (home !== undefined && home !== '' && !isAbsolute(home)) env['HOME'] = resolve(home)
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string
  }
  return pkg.version ?? '0.0.0'
}

/** The help: each command of the table with its options, then `help` and the common options. */
function helpText(): string {
  const lines = COMMANDS.flatMap((command) => [
    ...helpEntry(2, [command.name, command.usage].join(' ').trim(), describe(command)),
    ...(command.options ?? []).flatMap((option) => helpEntry(6, option.flag, option.text)),
  ])
  lines.push(...helpEntry(2, 'help', 'Print this help.'))
  return `${HELP_HEAD}${lines.join('\n')}\n${HELP_TAIL}`
}

/** The summary, its aliases named before the final full stop. */
function describe(command: CliCommand): string {
  const aliases = command.aliases ?? []
  if (aliases.length === 0) return command.summary
  const label = aliases.length === 1 ? 'alias' : 'aliases'
  return `${command.summary.replace(/\.$/, '')} (${label}: ${aliases.join(', ')}).`
}

/** `head` indented, then `text` wrapped in the description column (below `head` if too long). */
function helpEntry(indent: number, head: string, text: string): string[] {
  const lead = `${' '.repeat(indent)}${head}`
  const margin = ' '.repeat(HELP_COLUMN)
  const body = text.split('\n').flatMap((paragraph) => wrap(paragraph, HELP_WIDTH - HELP_COLUMN))
  const [first = '', ...rest] = body
  if (lead.length < HELP_COLUMN) {
    return [`${lead.padEnd(HELP_COLUMN)}${first}`, ...rest.map((line) => `${margin}${line}`)]
  }
  return [lead, ...body.map((line) => `${margin}${line}`)]
}

/** Greedy word wrap: lines of at most `width` characters, unless one word is longer. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  return [...lines, line]
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const isUsage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    writeErr(`bridle: ${error instanceof Error ? error.message : String(error)}\n`)
    if (isUsage) writeErr('Run `bridle --help` for usage.\n')
    process.exitCode = isUsage ? 2 : 1
  },
)
