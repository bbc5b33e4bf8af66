import { describe, expect, it } from 'vitest'
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import type { WireSettings } from '../../../protocol/events.js'
import { modelError } from '../../../main/core/models/model-errors.js'
import {
  DEFAULT_PROFILE,
  adaptToRefusal,
  kindOfHost,
  profileFor,
} from '../../../main/core/models/profile.js'
import type { ServerKind, ServerProfile } from '../../../main/core/models/profile.js'
import type { ModelErrorCode } from '../../../main/core/models/types.js'

describe('profileFor', () => {
  const plainKinds: readonly ServerKind[] = ['lm-studio', 'llama.cpp', 'vllm', 'openai', 'unknown']
  for (const kind of plainKinds) {
    it(`gives ${kind} the default profile`, () => {
      expect(profileFor({ kind })).toEqual(DEFAULT_PROFILE)
    })
  }

  it('sends Ollama through its native API without stream usage, with the num_ctx asked for', () => {
    expect(profileFor({ kind: 'ollama', numCtx: 16384 })).toEqual({
      wire: { ...DEFAULT_WIRE, api: 'ollama', streamUsage: false, numCtx: 16384 },
      unopenedThink: true,
    })
    expect(profileFor({ kind: 'ollama' }).wire.numCtx).toBeUndefined()
  })

  it('sends DeepSeek its reasoning back', () => {
    expect(profileFor({ kind: 'deepseek' }).wire).toEqual({
      ...DEFAULT_WIRE,
      replayReasoning: true,
    })
  })

  it('carries num_ctx only for the Ollama API', () => {
    expect(profileFor({ kind: 'llama.cpp', numCtx: 8192 }).wire.numCtx).toBeUndefined()
    const switched = profileFor({ kind: 'ollama', numCtx: 8192, overrides: [{ api: 'openai' }] })
    expect(switched.wire.api).toBe('openai')
    expect(switched.wire.numCtx).toBeUndefined()
  })

  it('lets a probe change the kind defaults', () => {
    const profile = profileFor({
      kind: 'llama.cpp',
      probed: { toolCalls: 'text', streamUsage: false, unopenedThink: false },
    })
    expect(profile).toEqual({
      wire: { ...DEFAULT_WIRE, toolCalls: 'text', streamUsage: false },
      unopenedThink: false,
    })
  })

  it("ignores a probe's stream usage on the Ollama API", () => {
    expect(profileFor({ kind: 'ollama', probed: { streamUsage: true } }).wire.streamUsage).toBe(
      false,
    )
  })

  it('lets overrides beat the probe, and the model override beat the endpoint one', () => {
    const profile = profileFor({
      kind: 'deepseek',
      probed: { toolCalls: 'text', streamUsage: false, unopenedThink: false },
      overrides: [
        { toolCalls: 'native-nonstream', streamUsage: true, replayReasoning: false },
        undefined,
        { toolCalls: 'native', unopenedThink: true },
      ],
    })
    expect(profile).toEqual({
      wire: { ...DEFAULT_WIRE, toolCalls: 'native', streamUsage: true, replayReasoning: false },
      unopenedThink: true,
    })
  })

  it('forces stream usage off on the Ollama API, even when an override asks for it', () => {
    const viaKind = profileFor({ kind: 'ollama', overrides: [{ streamUsage: true }] })
    expect(viaKind.wire.streamUsage).toBe(false)
    const viaOverride = profileFor({
      kind: 'vllm',
      numCtx: 4096,
      overrides: [{ api: 'ollama', streamUsage: true }],
    })
    expect(viaOverride.wire).toEqual({
      ...DEFAULT_WIRE,
      api: 'ollama',
      streamUsage: false,
      numCtx: 4096,
    })
  })

  it('never changes the shared defaults', () => {
    profileFor({ kind: 'ollama', numCtx: 2048, overrides: [{ toolCalls: 'text' }] })
    expect(DEFAULT_WIRE).toEqual({
      api: 'openai',
      toolCalls: 'native',
      streamUsage: true,
      replayReasoning: false,
    })
  })
})

describe('kindOfHost', () => {
  const hosts: readonly (readonly [string, ServerKind | undefined])[] = [
    ['https://api.deepseek.com/v1', 'deepseek'],
    ['https://API.DeepSeek.com', 'deepseek'],
    ['https://eu.api.deepseek.com/v1', 'deepseek'],
    ['https://api.openai.com/v1', 'openai'],
    ['https://notdeepseek.com/v1', undefined],
    ['https://api.openai.com.example.org/v1', undefined],
    ['http://127.0.0.1:11434', undefined],
    ['not a url', undefined],
  ]
  for (const [url, kind] of hosts) {
    it(`takes ${url} for ${String(kind)}`, () => {
      expect(kindOfHost(url)).toBe(kind)
    })
  }
})

describe('adaptToRefusal', () => {
  const profile: ServerProfile = {
    wire: { ...DEFAULT_WIRE, numCtx: 8192 },
    unopenedThink: false,
  }
  const rejected = (message: string, code: ModelErrorCode = 'REQUEST_REJECTED') =>
    modelError(code, `http://127.0.0.1:8080/v1 refused the request: ${message}`)
  const TOOLS = 'tools param requires --jinja flag'
  const STREAM_OPTIONS = 'Unrecognized request argument supplied: stream_options'
  const REASONING = 'Missing `reasoning_content` field in the assistant message at message index 2.'

  it('asks with tools as text when the server takes no tools, keeping the rest of the profile', () => {
    const adapted = adaptToRefusal(profile, profile.wire, rejected(TOOLS, 'SERVER_ERROR'), true)
    expect(adapted?.profile).toEqual({
      wire: { ...profile.wire, toolCalls: 'text' },
      unopenedThink: false,
    })
    expect(adapted?.remedy).toContain('tools described in the prompt')
  })

  it('asks without stream_options when a gateway refuses them', () => {
    const adapted = adaptToRefusal(profile, profile.wire, rejected(STREAM_OPTIONS), false)
    expect(adapted?.profile.wire).toEqual({ ...profile.wire, streamUsage: false })
    expect(adapted?.remedy).toContain('without stream_options')
  })

  it('sends reasoning back when the server wants it', () => {
    const adapted = adaptToRefusal(profile, profile.wire, rejected(REASONING), true)
    expect(adapted?.profile.wire).toEqual({ ...profile.wire, replayReasoning: true })
    expect(adapted?.remedy).toContain('reasoning sent back')
  })

  it('adapts the profile, not the settings of the refused request', () => {
    const sent: WireSettings = { ...DEFAULT_WIRE, toolCalls: 'native-nonstream' }
    const adapted = adaptToRefusal(profile, sent, rejected(TOOLS), true)
    expect(adapted?.profile.wire).toEqual({ ...profile.wire, toolCalls: 'text' })
  })

  it('is undefined when the shape already avoids the refusal', () => {
    const text: WireSettings = { ...DEFAULT_WIRE, toolCalls: 'text' }
    expect(adaptToRefusal(profile, text, rejected(TOOLS), true)).toBeUndefined()
    expect(adaptToRefusal(profile, DEFAULT_WIRE, rejected(TOOLS), false)).toBeUndefined()
    const noUsage: WireSettings = { ...DEFAULT_WIRE, streamUsage: false }
    expect(adaptToRefusal(profile, noUsage, rejected(STREAM_OPTIONS), true)).toBeUndefined()
    const replaying: WireSettings = { ...DEFAULT_WIRE, replayReasoning: true }
    expect(adaptToRefusal(profile, replaying, rejected(REASONING), true)).toBeUndefined()
  })

  it('is undefined for an overflow and for a message it does not recognise', () => {
    const overflow = rejected(
      'request (9000 tokens) exceeds the available context size (8192 tokens)',
    )
    expect(adaptToRefusal(profile, DEFAULT_WIRE, overflow, true)).toBeUndefined()
    expect(adaptToRefusal(profile, DEFAULT_WIRE, rejected('bad request'), true)).toBeUndefined()
  })

  it('is undefined unless the code is REQUEST_REJECTED or SERVER_ERROR', () => {
    const codes: readonly ModelErrorCode[] = [
      'CONTEXT_OVERFLOW',
      'RATE_LIMITED',
      'NOT_FOUND',
      'UNEXPECTED_REPLY',
      'PROFILE_CHANGED',
    ]
    for (const code of codes) {
      expect(
        adaptToRefusal(profile, DEFAULT_WIRE, rejected(TOOLS, code), true),
        code,
      ).toBeUndefined()
    }
  })
})
