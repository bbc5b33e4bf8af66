/**
 * A probe report and a server's window in words a person reads: the CLI's card, the settings'
 * card and the chat's model badge say the same things. Pure, shared by both sides of the bridge.
 */
import type { ProbeReport } from './probe-report.js'

/** The kinds of server Bridle tells apart. */
export type ServerKindName =
  'ollama' | 'lm-studio' | 'llama.cpp' | 'vllm' | 'deepseek' | 'openai' | 'unknown'

const SERVER_NAMES: Readonly<Record<string, string>> = {
  ollama: 'Ollama',
  'llama.cpp': 'llama.cpp',
  'lm-studio': 'LM Studio',
  vllm: 'vLLM',
  deepseek: 'DeepSeek',
  openai: 'OpenAI',
  unknown: 'an OpenAI-compatible server',
}

/** `Ollama 0.12.3`, `llama.cpp b6497`, `an OpenAI-compatible server`. */
export function serverName(kind: string, version?: string): string {
  return `${SERVER_NAMES[kind] ?? kind}${version === undefined ? '' : ` ${version}`}`
}

const n = (value: number) => value.toLocaleString('en')

/** The command line's endpoint (`--base-url`), whose window is a flag rather than a config entry. */
const COMMAND_LINE_ENDPOINT = 'cli'

/** How to give `model` a larger window on this kind of server, in one or two sentences. */
export function raiseWindowHint(
  kind: string,
  model: string,
  endpointId: string,
  honoured: number,
): string {
  const bigger = honoured * 4
  const config =
    endpointId === COMMAND_LINE_ENDPOINT
      ? `--context-window ${bigger} (or contextWindow for "${model}" in config.json)`
      : `endpoints.${endpointId}.models["${model}"].contextWindow in config.json (Settings, model ${model})`
  switch (kind) {
    case 'ollama':
      return `To give the model more room, set ${config}: Bridle then asks Ollama to run that window (num_ctx); or start Ollama with OLLAMA_CONTEXT_LENGTH=${bigger}.`
    case 'llama.cpp':
      return `To give the model more room, restart llama-server with a larger context (-c ${bigger}).`
    case 'lm-studio':
      return `To give the model more room, load ${model} in LM Studio with a larger context length (e.g. ${n(bigger)}).`
    case 'vllm':
      return 'To give the model more room, restart vLLM with a larger --max-model-len, if the model allows it.'
    default:
      return `To give the model more room, start the server with a larger context window, then set ${config}.`
  }
}

function callWords(report: ProbeReport): string {
  const calls = report.toolCalls
  switch (calls.streamed) {
    case 'structured':
      return 'native: structured calls in the stream'
    case 'text':
      return `native, but the model writes its calls as text (${calls.textFormat ?? 'JSON'}); Bridle reads them from the text`
    case 'refused':
      return `the server refuses tools${calls.serverSaid ? ` ("${calls.serverSaid}")` : ''}; Bridle describes them in the prompt and reads the calls from the text${calls.asText === 'text' ? ', which works' : ''}`
    case 'none':
    case 'failed':
    case 'skipped':
      if (calls.nonStreamed === 'structured')
        return 'structured only without streaming: Bridle asks without streaming when tools are offered'
      if (calls.asText === 'text')
        return `only with the tools described in the prompt (${calls.textFormat ?? 'JSON'}): Bridle uses that`
      return calls.streamed === 'failed'
        ? 'the test request failed (see the note)'
        : 'the model made no tool call'
  }
}

function reasoningWords(reasoning: ProbeReport['reasoning']): string {
  switch (reasoning) {
    case 'reasoning_content':
      return 'in the reasoning_content field'
    case 'reasoning':
      return 'in the reasoning field'
    case 'thinking':
      return "in Ollama's thinking field"
    case 'think-tags':
      return 'in <think> tags in the text; Bridle separates it'
    case 'unopened-think':
      return 'in the text up to a </think> (the template opens the block); Bridle separates it'
    case 'none':
      return 'none seen'
  }
}

function usageWords(streamOptions: ProbeReport['streamOptions']): string | undefined {
  switch (streamOptions) {
    case 'accepted':
      return 'stream_options accepted: token counts come with every answer'
    case 'refused':
      return 'stream_options refused: Bridle leaves it out for this server'
    case 'not-applicable':
      return undefined
  }
}

function contextWords(report: ProbeReport, endpointId: string): string {
  const c = report.context
  const runs =
    c.window === undefined
      ? 'the server does not say its window'
      : `${c.windowSource === 'default' ? 'assumed' : c.windowSource === 'advertised' ? 'advertised' : 'runs'} ${n(c.window)} tokens${c.trained !== undefined ? ` (trained for ${n(c.trained)})` : ''}`
  const tested =
    c.testedWith === undefined ? 'the long prompt' : `a ${n(c.testedWith)}-token prompt`
  switch (c.verdict) {
    case 'fits':
      return `${runs}; ${tested} was counted whole${c.reported === undefined ? '' : ` (${n(c.reported)})`}${c.sawHead === false ? ', though the model did not repeat the word at its start' : ''}`
    case 'cut':
      return `${runs}; the server cut ${tested} to ${n(c.reported ?? 0)} without a word: it honours about ${n(c.honoured ?? 0)} tokens. ${raiseWindowHint(report.kind, report.model, endpointId, c.honoured ?? c.reported ?? 4096)}`
    case 'refused':
      return `${runs}; the server refused ${tested} as too long${c.honoured === undefined ? '' : ` (it runs ${n(c.honoured)})`}`
    case 'untested':
      return `${runs}; not measured`
  }
}

/** The card's rows: a label and what was found, in order. */
export function probeRows(
  report: ProbeReport,
  endpointId: string,
): { label: string; text: string }[] {
  const rows = [
    { label: 'Tool calls', text: callWords(report) },
    { label: 'Reasoning', text: reasoningWords(report.reasoning) },
  ]
  const usage = usageWords(report.streamOptions)
  if (usage !== undefined) rows.push({ label: 'Token counts', text: usage })
  rows.push({ label: 'Context', text: contextWords(report, endpointId) })
  rows.push({
    label: 'Bridle uses',
    text: `the ${report.api === 'ollama' ? 'Ollama' : 'OpenAI'} API, tools ${report.toolCalls.chosen}`,
  })
  for (const note of report.notes) rows.push({ label: 'Note', text: note })
  return rows
}
