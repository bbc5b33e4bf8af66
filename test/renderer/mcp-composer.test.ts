import { describe, expect, it } from 'vitest'
import type { McpPromptView, McpResourceView } from '../../protocol/mcp'
import {
  isTextMime,
  matchResources,
  resourceLabel,
} from '../../renderer/src/features/chat/attach/resources'
import {
  applyCommand,
  applyPrompt,
  argumentsToSend,
  matchPrompts,
  missingArguments,
  slashAt,
} from '../../renderer/src/features/chat/attach/slash'

const prompt = (server: string, name: string, args: McpPromptView['arguments'] = []) =>
  ({
    server,
    name,
    command: `/mcp__${server}__${name}`,
    description: `${name} things`,
    arguments: args,
  }) satisfies McpPromptView

const PROMPTS = [
  prompt('fixture', 'review', [{ name: 'file', description: 'which file', required: true }]),
  prompt('fixture', 'summarize'),
  prompt('git', 'prereview'),
  prompt('git', 'commit-message'),
]

const resource = (server: string, uri: string, mimeType?: string): McpResourceView => ({
  server,
  uri,
  name: uri.replace(/^.*:\/\//, ''),
  description: '',
  ...(mimeType === undefined ? {} : { mimeType }),
})

describe('slashAt', () => {
  it('is the first word of the message while the caret is in it', () => {
    expect(slashAt('/', 1)).toEqual({ end: 1, query: '' })
    expect(slashAt('/rev', 4)).toEqual({ end: 4, query: 'rev' })
    expect(slashAt('/rev and more', 2)).toEqual({ end: 2, query: 'r' })
  })

  it('is nothing later in the message, after the word, or for a path', () => {
    expect(slashAt('see /rev', 8)).toBeUndefined()
    expect(slashAt('/rev ', 5)).toBeUndefined()
    expect(slashAt(' /rev', 5)).toBeUndefined()
    expect(slashAt('hello', 5)).toBeUndefined()
  })
})

describe('matchPrompts', () => {
  const commands = (query: string) => matchPrompts(PROMPTS, query).map((p) => p.command)

  it('ranks the name before the command, a start before a part, fuzzy last', () => {
    expect(commands('rev')).toEqual(['/mcp__fixture__review', '/mcp__git__prereview'])
    expect(commands('mcp__git')).toEqual(['/mcp__git__commit-message', '/mcp__git__prereview'])
    expect(commands('fxsum')).toEqual(['/mcp__fixture__summarize'])
    expect(commands('REV')).toEqual(commands('rev'))
  })

  it('lists every prompt for a bare slash, in command order, and nothing that does not match', () => {
    expect(commands('')).toEqual([
      '/mcp__fixture__review',
      '/mcp__fixture__summarize',
      '/mcp__git__commit-message',
      '/mcp__git__prereview',
    ])
    expect(commands('deploy')).toEqual([])
    expect(matchPrompts(PROMPTS, '', 2)).toHaveLength(2)
  })
})

describe('picking and filling in a prompt', () => {
  it('puts the whole command in place of the word typed, keeping what follows', () => {
    expect(applyCommand('/rev', { end: 4, query: 'rev' }, '/mcp__fixture__review')).toBe(
      '/mcp__fixture__review ',
    )
    expect(applyCommand('/r please', { end: 2, query: 'r' }, '/mcp__fixture__review')).toBe(
      '/mcp__fixture__review please',
    )
  })

  it("replaces the command with the prompt's text and keeps the user's words after it", () => {
    const command = '/mcp__fixture__review'
    expect(applyPrompt(`${command} `, command, 'Review a.ts for bugs.')).toBe(
      'Review a.ts for bugs.',
    )
    expect(applyPrompt(`${command} quickly`, command, 'Review a.ts.')).toBe(
      'Review a.ts.\n\nquickly',
    )
    // The command edited away meanwhile: the text goes first, nothing typed is lost.
    expect(applyPrompt('something else', command, 'Review a.ts.')).toBe(
      'Review a.ts.\n\nsomething else',
    )
  })

  it('names the required arguments left blank, and sends only the ones given', () => {
    const args = [
      { name: 'file', description: '', required: true },
      { name: 'focus', description: '', required: false },
      { name: 'depth', description: '', required: true },
    ]
    expect(missingArguments({ arguments: args }, {})).toEqual(['file', 'depth'])
    expect(missingArguments({ arguments: args }, { file: '  ', depth: '2' })).toEqual(['file'])
    expect(missingArguments({ arguments: args }, { file: 'a.ts', depth: '2' })).toEqual([])
    expect(argumentsToSend({ file: 'a.ts', focus: ' ', depth: '2' })).toEqual({
      file: 'a.ts',
      depth: '2',
    })
  })
})

describe('MCP resources in the @ list', () => {
  const RESOURCES = [
    resource('fixture', 'fixture://readme', 'text/plain'),
    resource('fixture', 'fixture://logo', 'image/png'),
    resource('docs', 'docs://guide/readme', 'text/markdown'),
  ]
  const uris = (query: string) => matchResources(RESOURCES, query).map((r) => r.uri)

  it("matches a URI's start first, then a part of it or the name, then the server", () => {
    expect(uris('fixture')).toEqual(['fixture://logo', 'fixture://readme'])
    expect(uris('readme')).toEqual(['docs://guide/readme', 'fixture://readme'])
    expect(uris('doc')).toEqual(['docs://guide/readme'])
    expect(uris('nothing')).toEqual([])
  })

  it('knows text from binary by its type, and treats an unknown type as text', () => {
    expect(isTextMime('text/plain; charset=utf-8')).toBe(true)
    expect(isTextMime('application/json')).toBe(true)
    expect(isTextMime('application/ld+json')).toBe(true)
    expect(isTextMime('application/xml')).toBe(true)
    expect(isTextMime(undefined)).toBe(true)
    expect(isTextMime('image/png')).toBe(false)
    expect(isTextMime('application/octet-stream')).toBe(false)
  })

  it('reads as its URI and its server', () => {
    expect(resourceLabel({ uri: 'fixture://readme', server: 'fixture' })).toBe(
      'fixture://readme · MCP fixture',
    )
  })
})
