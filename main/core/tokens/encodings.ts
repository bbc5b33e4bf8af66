/**
 * Which bundled BPE encoding a model uses, and the encodings themselves, loaded on first use: each
 * is a few MB of JavaScript (o200k takes ~150 ms to load), and a session with a local model never
 * needs one.
 */
import { createRequire } from 'node:module'
import type { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

export type EncodingName = 'o200k_base' | 'cl100k_base'

/** OpenAI's families since GPT-4o, the o-series reasoning models and the open-weight gpt-oss. */
const O200K =
  /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|gpt-realtime|gpt-audio|codex|o\d+(?:-|$))/
/** GPT-4 (before 4o), GPT-3.5 (`gpt-35` on Azure) and the embedding models of that era. */
const CL100K = /^(?:gpt-4|gpt-3\.5|gpt-35|text-embedding-(?:ada-002|3))/

/**
 * The encoding of `model`, or null when its family ships no tokenizer we bundle (Llama, Qwen,
 * Mistral, DeepSeek, Gemma, Phi...). Accepts the spellings servers use: `openai/gpt-4o`,
 * `ft:gpt-4o-mini:org::id`, `gpt-oss:20b` (an Ollama tag), any case.
 */
export function encodingForModel(model: string): EncodingName | null {
  const name = baseModelName(model)
  if (O200K.test(name)) return 'o200k_base'
  if (CL100K.test(name)) return 'cl100k_base'
  return null
}

/** `Provider/Name:tag` -> `name`; a fine-tune's `ft:` prefix and suffix go too. */
export function baseModelName(model: string): string {
  let name = model.trim().toLowerCase()
  if (name.startsWith('ft:')) name = name.slice(3)
  name = name.split(':')[0] ?? name
  return name.slice(name.lastIndexOf('/') + 1)
}

type CountTokens = typeof countTokens

/**
 * Special-token text (`<|endoftext|>`) in a tool's output is counted as the ordinary text the
 * server will see, not rejected as the package does by default.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() }

const requireModule = createRequire(import.meta.url)
const loaded = new Map<EncodingName, (text: string) => number>()

/**
 * A function counting `text` in `encoding`, loading it on the first call. Synchronous on purpose
 * (a `require` of the package's CommonJS build), so counting never needs an await; the package
 * stays external to the bundle, as electron-vite keeps `dependencies`.
 */
export function loadEncoding(encoding: EncodingName): (text: string) => number {
  let count = loaded.get(encoding)
  if (count === undefined) {
    const module = requireModule(`gpt-tokenizer/encoding/${encoding}`) as {
      countTokens: CountTokens
    }
    count = (text) => module.countTokens(text, AS_TEXT)
    loaded.set(encoding, count)
  }
  return count
}
