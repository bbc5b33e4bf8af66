import { describe, expect, it } from 'vitest'
import {
  APPROVAL_MODES,
  contextWindowText,
  SANDBOX_MODES,
  keyStateText,
  modelsSummary,
  serverKindName,
  toolSupportText,
  windowSourceText,
} from '../../renderer/src/features/settings/words'
import { Config } from '../../protocol/settings'

describe('settings words', () => {
  it('tells where a key comes from, never what it is', () => {
    expect(keyStateText({ key: 'none' })).toBe('no key')
    expect(keyStateText({ key: 'stored' })).toBe('key stored')
    expect(keyStateText({ key: 'env', apiKeyEnv: 'OPENAI_API_KEY' })).toBe(
      'key from $OPENAI_API_KEY',
    )
    expect(keyStateText({ key: 'env-missing', apiKeyEnv: 'X_KEY' })).toBe('$X_KEY is not set')
  })

  it('says unknown when the server does not', () => {
    expect(contextWindowText({ id: 'a' })).toBe('unknown')
    expect(contextWindowText({ id: 'a', contextWindow: 32768 })).toBe('32,768 tokens')
    expect(toolSupportText({ id: 'a' })).toBe('unknown')
    expect(toolSupportText({ id: 'a', supportsTools: true })).toBe('yes')
    expect(toolSupportText({ id: 'a', supportsTools: false })).toBe('no')
  })

  it('says where a window comes from', () => {
    expect(
      contextWindowText({
        id: 'qwen3:8b',
        contextWindow: 4096,
        contextSource: 'default',
        trainedContext: 40960,
      }),
    ).toBe("4,096 (Ollama's default; trained for 40,960)")
    expect(contextWindowText({ id: 'a', contextWindow: 8192, contextSource: 'server' })).toBe(
      '8,192 (what the server runs)',
    )
    expect(contextWindowText({ id: 'a', contextWindow: 40960, contextSource: 'advertised' })).toBe(
      '40,960 (advertised: the server may run less)',
    )
    expect(
      contextWindowText({
        id: 'a',
        contextWindow: 16384,
        contextSource: 'configured',
        trainedContext: 16384,
      }),
    ).toBe('16,384 (set in config)')
    expect(contextWindowText({ id: 'a', contextWindow: 8192, trainedContext: 32768 })).toBe(
      '8,192 (trained for 32,768)',
    )
    expect(windowSourceText('learned', 'ollama')).toMatch(/^learnt from a cut/)
    expect(windowSourceText('default', 'ollama')).toBe("Ollama's default, assumed")
    expect(windowSourceText('default', 'vllm')).toBe("the server's default, assumed")
    expect(windowSourceText(undefined, 'ollama')).toBeUndefined()
    expect(windowSourceText('new-source', 'ollama')).toBe('new-source')
  })

  it('names server kinds and summarises their models', () => {
    expect(serverKindName('lm-studio')).toBe('LM Studio')
    expect(serverKindName('something')).toBe('something')
    expect(modelsSummary([])).toBe('no models listed yet')
    expect(modelsSummary([{ id: 'a' }])).toBe('1 model: a')
    expect(modelsSummary([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }], 2)).toBe(
      '4 models: a, b and 2 more',
    )
  })

  it('explains each approval mode in one line', () => {
    expect(APPROVAL_MODES.map((m) => m.mode)).toEqual(['ask', 'auto-edit', 'full-auto'])
    for (const mode of APPROVAL_MODES) expect(mode.help).not.toContain('\n')
  })

  it('explains each sandbox setting in one line, in the order of the schema', () => {
    expect(SANDBOX_MODES.map((m) => m.mode)).toEqual(Config.shape.sandbox.unwrap().options)
    for (const mode of SANDBOX_MODES) {
      expect(mode.help).not.toContain('\n')
      expect(mode.help.length).toBeLessThan(120)
    }
  })
})
