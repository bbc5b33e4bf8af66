import { fileBlock, resourceBlock } from '../../../protocol/attachments.js'
import type { Attachment, ImageAttachment } from '../../../protocol/attachments.js'
import type { AssistantBlock, LogEvent } from '../../../protocol/events.js'
import { deepFreeze } from './freeze.js'
import type { SurfaceNode } from './surface.js'

/**
 * Provider-neutral messages: what the model is shown, derived from the surface. Adapters turn
 * these into their wire format; nothing else reaches a request.
 */
export type Message =
  | { readonly role: 'system'; readonly content: string; readonly seq: number }
  | {
      readonly role: 'user'
      readonly content: string
      readonly seq: number
      /**
       * `input`: the user's words; `context`: volatile facts the harness added; `notice`: the
       * harness about the model's last reply; `summary`: a checkpoint.
       */
      readonly kind: 'input' | 'context' | 'notice' | 'summary'
      /** Images sent with the message, in order; adapters make them image content parts. */
      readonly images?: readonly Pick<ImageAttachment, 'mime' | 'data'>[]
    }
  | {
      readonly role: 'assistant'
      readonly blocks: readonly AssistantBlock[]
      readonly seq: number
      readonly isInterrupted: boolean
    }
  | {
      readonly role: 'tool'
      readonly callId: string
      readonly isError: boolean
      /** The output, or for a failure `CODE: message`. */
      readonly content: string
      readonly seq: number
    }

/** How a checkpoint's summary is introduced to the model. */
export const SUMMARY_PREFIX =
  'The earlier part of this conversation was compacted. Summary of what happened before this point:\n\n'

/** The message for one surface node. `eventAt(seq)` returns the event of that seq. */
export function messageOf(node: SurfaceNode, eventAt: (seq: number) => LogEvent): Message {
  const event = eventAt(node.seq)
  switch (event.type) {
    case 'user/message': {
      const images = (event.data.attachments ?? []).flatMap((a) =>
        a.kind === 'image' ? [{ mime: a.mime, data: a.data }] : [],
      )
      return deepFreeze({
        role: 'user',
        content: userContent(event.data.content, event.data.attachments),
        seq: event.seq,
        kind: event.data.kind,
        ...(images.length === 0 ? {} : { images }),
      })
    }
    case 'assistant/message':
      return deepFreeze({
        role: 'assistant',
        blocks: event.data.blocks,
        seq: event.seq,
        isInterrupted: event.data.interrupted === true,
      })
    case 'tool/result':
      return deepFreeze({
        role: 'tool',
        callId: event.data.callId,
        isError: !event.data.ok,
        content: node.isPruned
          ? prunedStub(event)
          : event.data.ok
            ? event.data.output
            : `${event.data.error.code}: ${event.data.error.message}`,
        seq: event.seq,
      })
    case 'compaction/checkpoint':
      return deepFreeze({
        role: 'user',
        content: SUMMARY_PREFIX + event.data.summary,
        seq: event.seq,
        kind: 'summary',
      })
    default:
      throw new Error(`seq ${event.seq} (${event.type}) is on the surface but is not model-visible`)
  }
}

/**
 * A user message's text as the model sees it: the words, then each attached file as a
 * `<file path="…">` block and each MCP resource as a `<resource …>` block, so every adapter, the
 * token count and the request view agree.
 */
export function userContent(text: string, attachments: readonly Attachment[] | undefined): string {
  const files = (attachments ?? []).flatMap((a) =>
    a.kind === 'file' ? [fileBlock(a)] : a.kind === 'resource' ? [resourceBlock(a)] : [],
  )
  return files.length === 0 ? text : [text, ...files].join('\n\n')
}

/** What the model sees of a pruned output: its size and where to read it again. */
function prunedStub(event: LogEvent & { type: 'tool/result' }): string {
  const text = event.data.ok ? event.data.output : event.data.error.message
  const where = event.data.outputRef
    ? `read_output with ref "${event.data.outputRef}"`
    : `recall with fromSeq ${event.seq} and toSeq ${event.seq}`
  return `[output pruned from view to save context: ${Buffer.byteLength(text)} bytes; ${where} shows it again]`
}

/** The system message of a `request/header` event: its sections in order. */
export function systemMessageOf(header: LogEvent & { type: 'request/header' }): Message {
  return deepFreeze({
    role: 'system',
    content: header.data.sections.map((section) => section.text).join('\n\n'),
    seq: header.seq,
  })
}

/**
 * Keeps the derived messages of a surface up to date: after N new nodes it converts just those
 * N; a replace or undo (a new surface generation) starts over. Each call returns a new frozen
 * array, so a history handed out earlier never changes under its holder.
 */
export class MessageCache {
  private messages: Message[] = []
  private upTo = 0
  private generation = -1

  derive(
    nodes: readonly SurfaceNode[],
    generation: number,
    eventAt: (seq: number) => LogEvent,
  ): Message[] {
    if (generation !== this.generation || this.upTo > nodes.length) {
      this.messages = []
      this.upTo = 0
      this.generation = generation
    }
    for (; this.upTo < nodes.length; this.upTo++) {
      const node = nodes[this.upTo]
      if (node) this.messages.push(messageOf(node, eventAt))
    }
    return this.messages.slice()
  }

  /** Forgets everything (after a rollback). */
  reset(): void {
    this.generation = -1
  }
}
