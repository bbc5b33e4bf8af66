/**
 * Splits streamed content into reasoning and text for models that inline their reasoning as
 * `<think>...</think>` (Qwen3, DeepSeek-R1 and QwQ through llama.cpp or Ollama without a
 * reasoning parser). The tags may arrive split across chunks at any position, so a possible
 * partial tag at the end of a chunk is held back until the next chunk decides it.
 *
 * Only a `<think>` that opens the content (after optional whitespace) is recognised: a model
 * writing about the tag later in its answer must not have the rest of its answer hidden as
 * reasoning. Whitespace right after `</think>` is dropped (the models put a blank line there).
 *
 * A chat template that opens `<think>` in the prompt (Qwen3, DeepSeek-R1 with llama.cpp's
 * `--reasoning-format none`, LM Studio without separated reasoning) makes the output start inside
 * the reasoning: only `</think>` appears. The text streams as text until then (nothing says in
 * advance that it is reasoning); the first `</think>` with no `<think>` before it yields a
 * `retract` piece: everything emitted as text so far was reasoning. With `unopened: false` (a
 * profile that knows better) a lone `</think>` stays text.
 */

const OPEN = '<think>'
const CLOSE = '</think>'

export type ContentPiece =
  | { readonly kind: 'text' | 'reasoning'; readonly text: string }
  /** The text emitted so far in this reply was reasoning (an unopened `</think>` closed it). */
  | { readonly kind: 'retract' }

type State =
  /** Nothing but whitespace so far: a `<think>` may still open. */
  | 'start'
  | 'think'
  /** Just after `</think>`: whitespace is dropped. */
  | 'after-think'
  /** Answer text in which an unopened `</think>` may still turn up. */
  | 'maybe-reasoning'
  | 'text'

export class ThinkTagSplitter {
  private state: State = 'start'
  /** Received but not yet emitted: leading whitespace, or a possible partial tag. */
  private held = ''

  constructor(private readonly options: { readonly unopened?: boolean } = {}) {}

  /** Feeds one content fragment; returns what can be emitted now, in order. */
  push(fragment: string): ContentPiece[] {
    const out: ContentPiece[] = []
    let rest = this.held + fragment
    this.held = ''
    while (rest.length > 0) {
      switch (this.state) {
        case 'text':
          out.push({ kind: 'text', text: rest })
          return out
        case 'start': {
          const trimmed = rest.trimStart()
          if (trimmed.startsWith(OPEN)) {
            this.state = 'think'
            rest = trimmed.slice(OPEN.length)
          } else if (OPEN.startsWith(trimmed)) {
            // Whitespace, or whitespace and a prefix of `<think>`: undecided until more arrives.
            this.held = rest
            return out
          } else {
            this.state = this.options.unopened === false ? 'text' : 'maybe-reasoning'
          }
          break
        }
        case 'maybe-reasoning': {
          const at = rest.indexOf(CLOSE)
          const opensAt = rest.indexOf(OPEN)
          if (opensAt >= 0 && (at < 0 || opensAt < at)) {
            // A `<think>` in the answer: the model writes about the tags, none closes reasoning.
            this.state = 'text'
            break
          }
          if (at >= 0) {
            out.push({ kind: 'retract' })
            if (at > 0) out.push({ kind: 'reasoning', text: rest.slice(0, at) })
            this.state = 'after-think'
            rest = rest.slice(at + CLOSE.length)
            break
          }
          const keep = Math.max(partialSuffixLength(rest, CLOSE), partialSuffixLength(rest, OPEN))
          const emit = rest.slice(0, rest.length - keep)
          if (emit.length > 0) out.push({ kind: 'text', text: emit })
          this.held = rest.slice(rest.length - keep)
          return out
        }
        case 'think': {
          const at = rest.indexOf(CLOSE)
          if (at >= 0) {
            if (at > 0) out.push({ kind: 'reasoning', text: rest.slice(0, at) })
            this.state = 'after-think'
            rest = rest.slice(at + CLOSE.length)
          } else {
            const keep = partialSuffixLength(rest, CLOSE)
            const emit = rest.slice(0, rest.length - keep)
            if (emit.length > 0) out.push({ kind: 'reasoning', text: emit })
            this.held = rest.slice(rest.length - keep)
            return out
          }
          break
        }
        case 'after-think': {
          const trimmed = rest.trimStart()
          if (trimmed.length > 0) this.state = 'text'
          rest = trimmed
          break
        }
      }
    }
    return out
  }

  /** The end of the content: whatever was held back is emitted as what it turned out to be. */
  flush(): ContentPiece[] {
    const held = this.held
    this.held = ''
    if (held.length === 0) return []
    // An unterminated `<think>` leaves everything after it as reasoning.
    return [{ kind: this.state === 'think' ? 'reasoning' : 'text', text: held }]
  }
}

/** The length of the longest proper prefix of `tag` that `text` ends with. */
function partialSuffixLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length
  }
  return 0
}
