/**
 * What a server's refusal means, read from its own words: the servers say the same few things
 * in different sentences (collected from their sources and issue trackers; see the README of
 * test/fixtures/model-server for where each comes from). Recognising them lets the adapter change
 * how it asks (tools as text, no `stream_options`, reasoning sent back) and the loop compact
 * instead of retrying a request that cannot succeed.
 */

export type Refusal =
  /** The prompt does not fit the context the server runs. */
  | 'context-overflow'
  /** The server (or this model on it) takes no `tools`. */
  | 'tools-unsupported'
  /** A gateway that does not know `stream_options`. */
  | 'stream-options'
  /** DeepSeek's thinking mode (and Kimi's): earlier reasoning must be sent back. */
  | 'reasoning-required'

const PATTERNS: readonly (readonly [Refusal, RegExp])[] = [
  [
    'reasoning-required',
    // DeepSeek V3.2: "Missing `reasoning_content` field in the assistant message at message index 2";
    // V4: "The `reasoning_content` in the thinking mode must be passed back to the API";
    // Kimi: "thinking is enabled but reasoning_content is missing in assistant tool call message".
    /reasoning_content`?\s*(field\s*)?(is\s*)?missing|missing\s*`?reasoning_content|reasoning_content`?\s*in the thinking mode must be passed back/i,
  ],
  [
    'stream-options',
    // Azure: "Unrecognized request argument supplied: stream_options"; "Unknown parameter:
    // 'stream_options'"; Mistral: extra_forbidden at body.stream_options.include_usage;
    // Bedrock via LiteLLM: "extraneous key [include_usage] is not permitted".
    /stream_options|include_usage/i,
  ],
  [
    'tools-unsupported',
    // llama.cpp without --jinja: "tools param requires --jinja flag"; Ollama: "registry.ollama.ai/
    // library/gemma:2b does not support tools"; vLLM: "\"auto\" tool choice requires
    // --enable-auto-tool-choice and --tool-call-parser to be set".
    /tools? param requires --jinja|does not support tools|tool choice requires --enable-auto-tool-choice|tool_choice param requires|tools are not supported|does not support (function|tool) call/i,
  ],
  [
    'context-overflow',
    // llama.cpp: "the request exceeds the available context size", "request (4390 tokens)
    // exceeds the available context size (4096 tokens)", type exceed_context_size_error; vLLM:
    // "This model's maximum context length is 8192 tokens"; LM Studio: "(n_keep: 13055>= n_ctx:
    // 4096) ... load the model with a larger context length", "Context size has been exceeded";
    // OpenAI: context_length_exceeded.
    /exceeds? the available context|exceed_context_size|maximum context length|context[_ ]length[_ ]exceeded|context size has been exceeded|larger context length|is larger than the max context size|prompt is too long|input length exceeds|too many tokens/i,
  ],
]

/** What the server's message refuses, if it is one of the known refusals. */
export function recognizeRefusal(message: string): Refusal | undefined {
  for (const [refusal, pattern] of PATTERNS) if (pattern.test(message)) return refusal
  return undefined
}

/**
 * The context the server says it runs, from an overflow message: llama.cpp's "available context
 * size (4096 tokens)" and `"n_ctx": 4096`, LM Studio's "n_ctx: 4096", vLLM's "maximum context
 * length is 8192 tokens".
 */
export function contextWindowIn(message: string): number | undefined {
  const patterns = [
    /available context size \((\d+) tokens\)/i,
    /"?n_ctx"?\s*[:=]\s*(\d+)/i,
    /maximum context length is (\d+)/i,
    /context length of only (\d+)/i,
  ]
  for (const pattern of patterns) {
    const value = Number(pattern.exec(message)?.[1])
    if (Number.isInteger(value) && value > 0) return value
  }
  return undefined
}
