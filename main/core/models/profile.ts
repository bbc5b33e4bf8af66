/**
 * A server's profile: how requests are shaped for it (the wire settings logged with every
 * request) and how its replies are read. One place knows it, per endpoint and model; it comes
 * from the kind of server found at the URL, from a capability probe (probe.ts) when one was run,
 * and from config.json, in that order of strength, and it changes when the server refuses a
 * shape in words we recognise (refusals.ts).
 */
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import type { WireSettings } from '../../../protocol/events.js'
import { recognizeRefusal } from './refusals.js'
import type { ModelError } from './types.js'

export type ServerKind =
  'ollama' | 'lm-studio' | 'llama.cpp' | 'vllm' | 'deepseek' | 'openai' | 'unknown'

export interface ServerProfile {
  readonly wire: WireSettings
  /** Whether a lone `</think>` ends reasoning the chat template opened (reasoning read from text). */
  readonly unopenedThink: boolean
}

export const DEFAULT_PROFILE: ServerProfile = { wire: DEFAULT_WIRE, unopenedThink: true }

/** What config.json may say about a server or one of its models (`profile` of an endpoint or model). */
export interface ProfileOverride {
  readonly api?: WireSettings['api']
  readonly toolCalls?: WireSettings['toolCalls']
  readonly streamUsage?: boolean
  readonly replayReasoning?: boolean
  readonly unopenedThink?: boolean
}

/** What a probe found out (probe.ts), as far as it shapes requests. */
export interface ProbedShape {
  readonly toolCalls?: WireSettings['toolCalls']
  readonly streamUsage?: boolean
  readonly unopenedThink?: boolean
}

export interface ProfileInputs {
  readonly kind: ServerKind
  /** The window to ask Ollama for (`num_ctx`), when Bridle sets one. */
  readonly numCtx?: number
  readonly probed?: ProbedShape
  /** The endpoint's override, then the model's (the model's wins). */
  readonly overrides?: readonly (ProfileOverride | undefined)[]
}

/**
 * The profile for a model on a server: the kind's defaults (Ollama through its native API, so
 * that `num_ctx` can be set; DeepSeek with its reasoning sent back), then what a probe found,
 * then config.json.
 */
export function profileFor(inputs: ProfileInputs): ServerProfile {
  let wire: WireSettings = { ...DEFAULT_WIRE }
  let unopenedThink = true
  switch (inputs.kind) {
    case 'ollama':
      wire = { ...wire, api: 'ollama', streamUsage: false }
      break
    case 'deepseek':
      wire = { ...wire, replayReasoning: true }
      break
    case 'lm-studio':
    case 'llama.cpp':
    case 'vllm':
    case 'openai':
    case 'unknown':
      break
  }
  const probed = inputs.probed
  if (probed !== undefined) {
    if (probed.toolCalls !== undefined) wire = { ...wire, toolCalls: probed.toolCalls }
    // (Ollama's native API has none; the end of this function sees to that.)
    if (probed.streamUsage !== undefined) wire = { ...wire, streamUsage: probed.streamUsage }
    if (probed.unopenedThink !== undefined) unopenedThink = probed.unopenedThink
  }
  for (const override of inputs.overrides ?? []) {
    if (override === undefined) continue
    if (override.api !== undefined) wire = { ...wire, api: override.api }
    if (override.toolCalls !== undefined) wire = { ...wire, toolCalls: override.toolCalls }
    if (override.streamUsage !== undefined) wire = { ...wire, streamUsage: override.streamUsage }
    if (override.replayReasoning !== undefined) {
      wire = { ...wire, replayReasoning: override.replayReasoning }
    }
    if (override.unopenedThink !== undefined) unopenedThink = override.unopenedThink
  }
  if (wire.api === 'ollama') {
    // Ollama's native API has no stream_options; num_ctx is its own.
    wire = { ...wire, streamUsage: false }
    if (inputs.numCtx !== undefined) wire = { ...wire, numCtx: inputs.numCtx }
  }
  return { wire, unopenedThink }
}

/** The kind a base URL names by its host, whatever answers there (a hosted API). */
export function kindOfHost(baseUrl: string): ServerKind | undefined {
  let host: string
  try {
    host = new URL(baseUrl).hostname.toLowerCase()
  } catch {
    return undefined
  }
  if (host === 'api.deepseek.com' || host.endsWith('.deepseek.com')) return 'deepseek'
  if (host === 'api.openai.com') return 'openai'
  return undefined
}

/**
 * How the profile changes after a refusal of the request's shape, and what to tell the user;
 * undefined when the failure is not such a refusal (or the shape already avoids it).
 */
export function adaptToRefusal(
  profile: ServerProfile,
  wire: WireSettings,
  failure: ModelError,
  hasTools: boolean,
): { readonly profile: ServerProfile; readonly remedy: string } | undefined {
  if (failure.code !== 'REQUEST_REJECTED' && failure.code !== 'SERVER_ERROR') return undefined
  const change = (next: Partial<WireSettings>, remedy: string) => ({
    profile: { ...profile, wire: { ...profile.wire, ...next } },
    remedy,
  })
  switch (recognizeRefusal(failure.message)) {
    case 'tools-unsupported':
      return hasTools && wire.toolCalls !== 'text'
        ? change(
            { toolCalls: 'text' },
            'asking again with the tools described in the prompt (the model writes its calls as text)',
          )
        : undefined
    case 'stream-options':
      return wire.streamUsage
        ? change({ streamUsage: false }, 'asking again without stream_options')
        : undefined
    case 'reasoning-required':
      return !wire.replayReasoning
        ? change({ replayReasoning: true }, 'asking again with the earlier reasoning sent back')
        : undefined
    case 'context-overflow':
    case undefined:
      return undefined
  }
}
