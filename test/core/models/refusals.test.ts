import { describe, expect, it } from 'vitest'
import { contextWindowIn, recognizeRefusal } from '../../../main/core/models/refusals.js'
import type { Refusal } from '../../../main/core/models/refusals.js'

/** The servers' own words, as quoted in refusals.ts and the persona catalog. */
const REFUSALS: readonly (readonly [Refusal, string])[] = [
  [
    'reasoning-required',
    'Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
  ],
  [
    'reasoning-required',
    'The `reasoning_content` in the thinking mode must be passed back to the API',
  ],
  [
    'reasoning-required',
    'thinking is enabled but reasoning_content is missing in assistant tool call message',
  ],
  ['stream-options', 'Unrecognized request argument supplied: stream_options'],
  ['stream-options', "Unknown parameter: 'stream_options'"],
  [
    'stream-options',
    '[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted"}]',
  ],
  ['stream-options', 'extraneous key [include_usage] is not permitted'],
  ['tools-unsupported', 'tools param requires --jinja flag'],
  ['tools-unsupported', 'registry.ollama.ai/library/gemma:2b does not support tools'],
  [
    'tools-unsupported',
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  ],
  [
    'context-overflow',
    'the request exceeds the available context size. try increasing the context size or enable context shift',
  ],
  [
    'context-overflow',
    'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
  ],
  ['context-overflow', 'exceed_context_size_error'],
  [
    'context-overflow',
    "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages, Please reduce the length of the messages.",
  ],
  [
    'context-overflow',
    'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.',
  ],
  ['context-overflow', 'Context size has been exceeded.'],
  ['context-overflow', 'context_length_exceeded'],
]

/** Failures that are not a refusal of the request's shape. */
const NOT_REFUSALS: readonly string[] = [
  'Too Many Requests',
  'Rate limit reached for requests. Please try again in 20s.',
  "model 'llama3:8b' not found, try pulling it first",
  'The model `gpt-5` does not exist or you do not have access to it.',
  'Incorrect API key provided: sk-abc***',
  'Internal Server Error',
  'Loading model',
  'tool "read" failed: ENOENT',
  '',
]

describe('recognizeRefusal', () => {
  for (const [refusal, message] of REFUSALS) {
    it(`reads ${refusal} in ${JSON.stringify(message.slice(0, 60))}`, () => {
      expect(recognizeRefusal(message)).toBe(refusal)
    })
  }

  for (const message of NOT_REFUSALS) {
    it(`recognises nothing in ${JSON.stringify(message)}`, () => {
      expect(recognizeRefusal(message)).toBeUndefined()
    })
  }

  it('ignores case', () => {
    expect(recognizeRefusal('TOOLS PARAM REQUIRES --JINJA FLAG')).toBe('tools-unsupported')
  })
})

describe('contextWindowIn', () => {
  const windows: readonly (readonly [string, number])[] = [
    [
      'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
      4096,
    ],
    ['{"code":400,"type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}', 8192],
    [
      'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096).',
      4096,
    ],
    [
      "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens",
      32768,
    ],
    ['the model has a context length of only 2048 tokens', 2048],
  ]
  for (const [message, window] of windows) {
    it(`reads ${window} from ${JSON.stringify(message.slice(0, 60))}`, () => {
      expect(contextWindowIn(message)).toBe(window)
    })
  }

  it('does not take the trained length (n_ctx_train) for the window', () => {
    expect(contextWindowIn('{"n_ctx_train": 40960}')).toBeUndefined()
  })

  it('is undefined when the message names no window', () => {
    expect(
      contextWindowIn(
        'the request exceeds the available context size. try increasing the context size or enable context shift',
      ),
    ).toBeUndefined()
    expect(contextWindowIn('Too Many Requests')).toBeUndefined()
    expect(contextWindowIn('n_ctx: 0')).toBeUndefined()
  })
})
