/**
 * Connecting to a model: which adapter, shaped by which profile, planning for which window. The
 * CLI and the Host both come here once they know the endpoint, the model and the server's
 * listing, so `bridle run` and the app talk to a server the same way.
 *
 * The window, strongest first: config.json's (or `--context-window`), then the smallest of what
 * the server was seen to honour (a cut prompt, a probe, an overflow naming its n_ctx) and what it
 * says it runs, then what it advertises. On Ollama a configured window is also sent as
 * `num_ctx`, so the window planned for is the window run.
 */
import type { ListModelsResult } from '../../models/discovery.js'
import { createOllamaAdapter } from '../../models/ollama-native.js'
import { createOpenAiCompatibleAdapter } from '../../models/openai-compatible.js'
import { kindOfHost, profileFor } from '../../models/profile.js'
import type {
  ProbedShape,
  ProfileOverride,
  ServerKind,
  ServerProfile,
} from '../../models/profile.js'
import type { EndpointConfig, ModelAdapter } from '../../models/types.js'
import type { WindowSource } from '../../tokens/window.js'
import type { CapabilityRecord, CapabilityStore } from './capabilities.js'
import { raiseWindowHint } from '../../../../protocol/probe-words.js'
import { configuredWindow } from './resolve.js'
import type { EndpointEntry } from './resolve.js'

export interface ModelConnection {
  readonly adapter: ModelAdapter
  readonly model: string
  readonly kind: ServerKind
  readonly profile: ServerProfile
  readonly contextWindow?: number
  readonly windowSource?: WindowSource
  readonly serverVersion?: string
  /** One sentence: how to give the model a larger window on this server. */
  readonly raiseHint: (window: number) => string
  /** Keeps a window the session found the server honours, for the next session. */
  readonly onWindowLearned: (tokens: number) => void
}

export interface ConnectInputs {
  readonly entry: EndpointEntry
  /** The endpoint with its key. */
  readonly endpoint: EndpointConfig
  readonly model: string
  /** The server's listing, when it answered one. */
  readonly listing?: ListModelsResult
  readonly capabilities?: CapabilityStore
}

export function connectModel(inputs: ConnectInputs): ModelConnection {
  const { entry, endpoint, model, listing, capabilities } = inputs
  const listed = listing?.ok === true ? listing : undefined
  const serverVersion = listed?.serverVersion
  // Ollama's native API only for a server that answered as Ollama (its /api/version), not one
  // merely listening on Ollama's port.
  const isOllama = listed?.kind === 'ollama' && listed.serverVersion !== undefined
  const kind: ServerKind =
    kindOfHost(entry.baseUrl) ??
    (listed?.kind === 'ollama' && !isOllama ? undefined : listed?.kind) ??
    'unknown'
  const record = capabilities?.get(entry.baseUrl, model, serverVersion)
  const configured = configuredWindow(entry, model)
  const window =
    configured !== undefined
      ? { tokens: configured, source: 'configured' as const }
      : evidenceWindow(listed, model, record)
  const profile = profileFor({
    kind,
    ...(kind === 'ollama' && configured !== undefined ? { numCtx: configured } : {}),
    ...(record?.probe === undefined ? {} : { probed: shapeOfProbe(record) }),
    overrides: [learnedShape(record), entry.profile, entry.models?.[model]?.profile],
  })
  const adapterOptions = {
    profile,
    // Only what the refusal changed is kept: the rest stays the kind's, the probe's and config's.
    onProfileChange: (changed: ServerProfile) => {
      const was = profile.wire
      const now = changed.wire
      capabilities?.learn(
        entry.baseUrl,
        model,
        {
          ...(now.toolCalls === was.toolCalls ? {} : { toolCalls: now.toolCalls }),
          ...(now.streamUsage === was.streamUsage ? {} : { streamUsage: now.streamUsage }),
          ...(now.replayReasoning === was.replayReasoning
            ? {}
            : { replayReasoning: now.replayReasoning }),
        },
        serverVersion,
      )
    },
  }
  const adapter =
    profile.wire.api === 'ollama'
      ? createOllamaAdapter(endpoint, adapterOptions)
      : createOpenAiCompatibleAdapter(endpoint, adapterOptions)
  return {
    adapter,
    model,
    kind,
    profile,
    ...(window === undefined ? {} : { contextWindow: window.tokens, windowSource: window.source }),
    ...(serverVersion === undefined ? {} : { serverVersion }),
    raiseHint: (honoured) => raiseWindowHint(kind, model, entry.id, honoured),
    onWindowLearned: (tokens) => {
      capabilities?.learn(entry.baseUrl, model, { contextWindow: tokens }, serverVersion)
    },
  }
}

/** Without a configured window: the smallest the server was seen to honour or says it runs. */
function evidenceWindow(
  listed: Extract<ListModelsResult, { ok: true }> | undefined,
  model: string,
  record: CapabilityRecord | undefined,
): { tokens: number; source: WindowSource } | undefined {
  const candidates: { tokens: number; source: WindowSource }[] = []
  const info = listed?.models.find((m) => m.id === model)
  if (info?.contextWindow !== undefined) {
    candidates.push({ tokens: info.contextWindow, source: info.contextSource ?? 'advertised' })
  }
  const learned = record?.learned?.contextWindow
  if (learned !== undefined) candidates.push({ tokens: learned, source: 'learned' })
  const probe = record?.probe?.context
  if (probe?.verdict === 'cut' && probe.honoured !== undefined) {
    candidates.push({ tokens: probe.honoured, source: 'probed' })
  }
  return candidates.sort((a, b) => a.tokens - b.tokens)[0]
}

function shapeOfProbe(record: CapabilityRecord): ProbedShape {
  const probe = record.probe
  if (probe === undefined) return {}
  return {
    toolCalls: probe.toolCalls.chosen,
    ...(probe.streamOptions === 'refused' ? { streamUsage: false } : {}),
    ...(probe.reasoning === 'unopened-think' ? { unopenedThink: true } : {}),
  }
}

function learnedShape(record: CapabilityRecord | undefined): ProfileOverride | undefined {
  const learned = record?.learned
  if (learned === undefined) return undefined
  return {
    ...(learned.toolCalls === undefined ? {} : { toolCalls: learned.toolCalls }),
    ...(learned.streamUsage === undefined ? {} : { streamUsage: learned.streamUsage }),
    ...(learned.replayReasoning === undefined ? {} : { replayReasoning: learned.replayReasoning }),
  }
}
