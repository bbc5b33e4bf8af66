/**
 * A session's model profile (`session/get`'s `profile`) in words: the badge's few (the model,
 * its server, and only what is unusual) and the panel's facts. Pure, so tests pin them.
 */
import type { ModelProfileView } from '../../../../protocol/contract'
import { serverName } from '../../../../protocol/probe-words'
import { windowSourceText } from '../settings'

/**
 * What differs from a server that simply streams structured calls: each a few words, for the
 * badge. Empty for an ordinary profile, so the badge stays short.
 */
export function profileQuirks(profile: ModelProfileView): string[] {
  const quirks: string[] = []
  if (profile.toolCalls === 'text') quirks.push('tools as text')
  if (profile.toolCalls === 'native-nonstream') quirks.push('tools unstreamed')
  if (profile.replayReasoning) quirks.push('reasoning sent back')
  if (profile.windowSource === 'learned') quirks.push('window learnt from a cut')
  return quirks
}

/** The badge's server: `Ollama 0.12.3`, `llama.cpp b6497`, `an OpenAI-compatible server`. */
export function profileServer(profile: ModelProfileView): string {
  return serverName(profile.serverKind, profile.serverVersion)
}

/** The server in the badge's few words: `an OpenAI-compatible server` is only its kind there. */
export function badgeServer(profile: ModelProfileView): string {
  return profile.serverKind === 'unknown' ? 'OpenAI-compatible' : profileServer(profile)
}

/** The panel's facts, in order: a label and what Bridle does. */
export function profileFacts(profile: ModelProfileView): { label: string; text: string }[] {
  const facts = [
    { label: 'Model', text: profile.model },
    { label: 'Server', text: `${profileServer(profile)}, endpoint ${profile.endpointId}` },
    {
      label: 'API',
      text:
        profile.api === 'ollama'
          ? "Ollama's own (/api/chat), which can set the window (num_ctx)"
          : 'OpenAI-compatible (/v1/chat/completions)',
    },
    { label: 'Tool calls', text: toolCallsText(profile.toolCalls) },
    {
      label: 'Reasoning',
      text: profile.replayReasoning
        ? 'sent back to the model with its tool calls (the server asks for it)'
        : 'shown here, not sent back to the model',
    },
  ]
  if (profile.api === 'openai') {
    facts.push({
      label: 'Token counts',
      text: profile.streamUsage
        ? 'asked for with every answer (stream_options)'
        : 'not asked for: the server refuses stream_options',
    })
  }
  facts.push({ label: 'Window', text: windowText(profile) })
  return facts
}

function toolCallsText(mode: ModelProfileView['toolCalls']): string {
  switch (mode) {
    case 'native':
      return 'native: structured calls in the stream'
    case 'native-nonstream':
      return 'native, asked for without streaming when tools are offered'
    case 'text':
      return "described in the prompt; Bridle reads the calls from the model's text"
  }
}

function windowText(profile: ModelProfileView): string {
  if (profile.contextWindow === undefined) return 'unknown: the server does not say'
  const source = windowSourceText(profile.windowSource, profile.serverKind)
  const size = `${profile.contextWindow.toLocaleString('en-US')} tokens`
  return source === undefined ? size : `${size} (${source})`
}
