import type { AssistantBlock, ChunkDelta } from '../../../protocol/events.js'
import type { StreamPart, Usage } from '../models/types.js'

/**
 * Builds an assistant message from stream parts as they arrive: consecutive text (or reasoning)
 * merges into one block, tool calls are assembled by the index the provider gave them, and
 * blocks keep the order in which they first appeared.
 */
export class MessageAssembler {
  private readonly blocks: ((AssistantBlock & { type: 'text' | 'reasoning' }) | ToolCallDraft)[] =
    []
  private readonly calls = new Map<number, ToolCallDraft>()
  usage: Usage | undefined
  /** True once any text, reasoning or tool-call part arrived. */
  hasContent = false
  /** The format the calls were written in, when they were read from the reply's text. */
  textCallFormat: string | undefined

  /** Takes one part; returns the chunk delta to log for it, if any. */
  add(part: StreamPart): ChunkDelta | undefined {
    switch (part.type) {
      case 'text':
      case 'reasoning': {
        if (part.text === '') return undefined
        this.hasContent = true
        const last = this.blocks.at(-1)
        if (last?.type === part.type) last.text += part.text
        else this.blocks.push({ type: part.type, text: part.text })
        return { kind: part.type, text: part.text }
      }
      case 'tool-call-start': {
        this.hasContent = true
        const draft: ToolCallDraft = {
          type: 'tool-call',
          callId: part.callId,
          name: part.name,
          args: '',
        }
        this.calls.set(part.index, draft)
        this.blocks.push(draft)
        return { kind: 'tool-call', index: part.index, callId: part.callId, name: part.name }
      }
      case 'tool-call-delta': {
        const draft = this.calls.get(part.index)
        if (!draft) return undefined
        draft.args += part.argsDelta
        return { kind: 'tool-call', index: part.index, argsDelta: part.argsDelta }
      }
      case 'text-is-reasoning':
        this.reclassifyTextAsReasoning()
        return { kind: 'text-is-reasoning' }
      case 'text-calls':
        this.textCallFormat = part.format
        return undefined
      case 'usage':
        this.usage = part.usage
        return undefined
      case 'finish':
      case 'error':
        return undefined
    }
  }

  /**
   * The text blocks so far become one reasoning block at the front: the reply began inside a
   * `<think>` the chat template opened, so nothing before the `</think>` was the answer.
   */
  private reclassifyTextAsReasoning(): void {
    const thoughts: string[] = []
    const rest: typeof this.blocks = []
    for (const block of this.blocks) {
      if (block.type === 'text' || block.type === 'reasoning') thoughts.push(block.text)
      else rest.push(block)
    }
    this.blocks.length = 0
    const text = thoughts.join('')
    if (text !== '') this.blocks.push({ type: 'reasoning', text })
    this.blocks.push(...rest)
  }

  /**
   * Every block, tool calls included (for a stream that finished). A call id the reply already
   * used (servers that number calls per reply, or a confused model) gets a unique one, so each
   * call keeps its own result; `renamedCalls` says which.
   */
  complete(): AssistantBlock[] {
    const used = new Set<string>()
    this.renamedCalls = []
    return this.blocks.map((block) => {
      if (block.type !== 'tool-call') return { ...block }
      let callId = block.callId
      for (let n = 2; used.has(callId); n++) callId = `${block.callId}_${n}`
      used.add(callId)
      if (callId !== block.callId) this.renamedCalls.push({ from: block.callId, to: callId })
      return { ...block, callId }
    })
  }

  /** The call ids `complete()` had to change, in the reply's order. */
  renamedCalls: { readonly from: string; readonly to: string }[] = []

  /**
   * What survives an interruption: the text and reasoning that streamed, without tool calls
   * (a call cut off mid-arguments must never run, and a whole one was not confirmed either).
   */
  withoutToolCalls(): AssistantBlock[] {
    return this.blocks.filter((block) => block.type !== 'tool-call').map((block) => ({ ...block }))
  }
}

interface ToolCallDraft {
  readonly type: 'tool-call'
  readonly callId: string
  readonly name: string
  args: string
}
