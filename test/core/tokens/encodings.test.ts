import { describe, expect, it } from 'vitest'
import {
  baseModelName,
  encodingForModel,
  loadEncoding,
  tokenCounter,
} from '../../../main/core/tokens/index.js'

describe('encodingForModel', () => {
  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['gpt-5.1-codex', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['o4-mini-2025-04-16', 'o200k_base'],
    ['gpt-oss:20b', 'o200k_base'],
    ['openai/gpt-oss-120b', 'o200k_base'],
    ['OpenAI/GPT-4o', 'o200k_base'],
    ['ft:gpt-4o-mini:acme::abc123', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-4-0613', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['gpt-35-turbo', 'cl100k_base'],
    ['text-embedding-3-small', 'cl100k_base'],
  ])('%s uses %s', (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding)
  })

  it.each([
    'llama3.1:8b',
    'meta-llama/Llama-3.1-8B-Instruct',
    'qwen2.5-coder:7b',
    'Qwen/Qwen3-30B-A3B',
    'mistral-small',
    'deepseek-chat',
    'deepseek-r1:14b',
    'gemma3:12b',
    'phi4',
    'olmo2',
    'omni',
    '',
  ])('%s has no bundled encoding', (model) => {
    expect(encodingForModel(model)).toBeNull()
    const counter = tokenCounter(model)
    expect(counter.kind).toBe('estimate')
    expect(counter.encoding).toBeNull()
  })

  it('strips provider, tag and fine-tune parts', () => {
    expect(baseModelName(' Qwen/Qwen2.5-7B-Instruct ')).toBe('qwen2.5-7b-instruct')
    expect(baseModelName('llama3.1:8b-instruct-q4_K_M')).toBe('llama3.1')
    expect(baseModelName('ft:gpt-4o:org:name:id')).toBe('gpt-4o')
  })
})

describe('exact counts', () => {
  // Published in OpenAI's cookbook ("How to count tokens with tiktoken").
  it.each([
    ['o200k_base', 'hello world', 2],
    ['o200k_base', 'tiktoken is great!', 6],
    ['o200k_base', 'antidisestablishmentarianism', 6],
    ['cl100k_base', 'hello world', 2],
    ['cl100k_base', 'tiktoken is great!', 6],
    ['cl100k_base', 'antidisestablishmentarianism', 6],
  ] as const)('%s counts %j as %i', (encoding, text, tokens) => {
    expect(loadEncoding(encoding)(text)).toBe(tokens)
  })

  it('counts the empty string as 0 and loads an encoding once', () => {
    expect(loadEncoding('o200k_base')('')).toBe(0)
    expect(loadEncoding('o200k_base')).toBe(loadEncoding('o200k_base'))
  })

  it('counts special-token text as the plain text the server sees', () => {
    const count = loadEncoding('cl100k_base')
    expect(count('<|endoftext|>')).toBe(7)
    expect(count('a <|im_start|> b')).toBeGreaterThan(3)
  })

  it('is what a counter for an OpenAI model uses', () => {
    const counter = tokenCounter('gpt-4o')
    expect(counter.kind).toBe('exact')
    expect(counter.encoding).toBe('o200k_base')
    expect(counter.count('tiktoken is great!')).toBe(6)
    expect(tokenCounter('gpt-4').count('antidisestablishmentarianism')).toBe(6)
  })
})
