import type { RequestView } from '../../../../protocol/contract.js'
import { applyToSurface } from '../../log/derive.js'
import { MODEL_VISIBLE } from '../../../../protocol/events.js'
import type { EventType, LogEvent, LogEventOf } from '../../../../protocol/events.js'
import { messageOf, systemMessageOf } from '../../log/messages.js'
import type { Message } from '../../log/messages.js'
import { rowToEvent } from '../../log/rows.js'
import { Surface } from '../../log/surface.js'
import type { Store } from '../../store/index.js'
import { calibrationFromLog, tokenCounter } from '../../tokens/index.js'
import { HostError } from '../host.js'

/**
 * The events that shape the model's view (the surface and its compactions) plus the ones a
 * token calibration learns from. Everything else in the log cannot change what a request held,
 * so only these are read: the type index keeps that cheap however long the session is.
 */
const VIEW_TYPES: readonly EventType[] = [
  ...MODEL_VISIBLE,
  'compaction/undone',
  'compaction/pruned',
  'request/start',
  'step/end',
]

type ViewMessage = RequestView['messages'][number]

/**
 * What the model was sent for the `request/start` at `startSeq`, rebuilt from the log: the
 * header at its `headerSeq` (system prompt, tools), then the surface as it stood at `startSeq`,
 * the same derivation the loop and `deriveMessagesAt` use. Tokens are counted with the model's
 * counter, calibrated from the requests before this one, as the loop counted it then; `history`
 * is every non-system message, of which `checkpoint` (summaries) and `toolOutputs` are parts.
 */
export function requestView(store: Store, sessionId: string, startSeq: number): RequestView {
  const start = requestStartAt(store, sessionId, startSeq)
  const header = eventAt(store, sessionId, start.data.headerSeq)
  if (header?.type !== 'request/header') {
    throw new Error(
      `session ${sessionId}: request/start at ${startSeq} names header seq ${start.data.headerSeq}, which is not a request/header`,
    )
  }
  const before = store
    .readEvents(sessionId, { toSeq: startSeq, types: VIEW_TYPES })
    .map((row) => rowToEvent(row, row.seq))
  const { messages, nodes } = viewAt(before, header)
  const counter = tokenCounter(start.data.model, { calibration: calibrationFromLog(before) })
  const tools = header.data.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }))
  const count = counter.countMessages(messages, tools)
  const shown = messages.map((message, i) =>
    toViewMessage(message, count.perMessage[i] ?? 0, nodes.get(message.seq)),
  )
  const sumOf = (pick: (message: ViewMessage) => boolean) =>
    shown.filter(pick).reduce((total, message) => total + message.tokens, 0)
  const reported = reportedInputTokens(store, sessionId, start)
  return {
    startSeq,
    model: start.data.model,
    params: { ...start.data.params },
    messages: shown,
    tools,
    tokens: {
      system: count.system,
      tools: count.tools,
      history: count.history,
      checkpoint: sumOf((m) => m.kind === 'summary'),
      toolOutputs: sumOf((m) => m.role === 'tool'),
      total: count.total,
      method: counter.kind === 'exact' ? (counter.encoding ?? 'exact') : 'estimate',
    },
    ...(reported === undefined ? {} : { reportedInputTokens: reported }),
  }
}

function requestStartAt(
  store: Store,
  sessionId: string,
  startSeq: number,
): LogEventOf<'request/start'> {
  const event = eventAt(store, sessionId, startSeq)
  if (event?.type !== 'request/start') {
    throw new HostError(
      'NOT_FOUND',
      event === undefined
        ? `session ${sessionId} has no event at seq ${startSeq}`
        : `seq ${startSeq} of session ${sessionId} is a ${event.type}, not a request/start`,
    )
  }
  return event
}

function eventAt(store: Store, sessionId: string, seq: number): LogEvent | undefined {
  const [row] = store.readEvents(sessionId, { fromSeq: seq, toSeq: seq + 1 })
  return row === undefined ? undefined : rowToEvent(row, seq)
}

/** The system message, then the surface's messages, with the surface node behind each. */
function viewAt(
  events: readonly LogEvent[],
  header: LogEventOf<'request/header'>,
): { messages: Message[]; nodes: Map<number, { isPruned?: boolean }> } {
  const surface = new Surface()
  const bySeq = new Map<number, LogEvent>()
  for (const event of events) {
    bySeq.set(event.seq, event)
    applyToSurface(surface, event)
  }
  const lookup = (seq: number): LogEvent => {
    const event = bySeq.get(seq)
    if (!event) throw new Error(`seq ${seq} is on the surface but was not read`)
    return event
  }
  const nodes = new Map(surface.nodes.map((node) => [node.seq, node]))
  const messages = [
    systemMessageOf(header),
    ...surface.nodes.map((node) => messageOf(node, lookup)),
  ]
  return { messages, nodes }
}

function toViewMessage(
  message: Message,
  tokens: number,
  node: { isPruned?: boolean } | undefined,
): ViewMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', seq: message.seq, content: message.content, tokens }
    case 'user':
      return {
        role: 'user',
        seq: message.seq,
        kind: message.kind,
        content: message.content,
        tokens,
      }
    case 'tool':
      return {
        role: 'tool',
        seq: message.seq,
        callId: message.callId,
        content: message.content,
        tokens,
        ...(node?.isPruned === true ? { kind: 'pruned' } : {}),
      }
    case 'assistant': {
      const toolCalls = message.blocks.flatMap((block) =>
        block.type === 'tool-call'
          ? [{ callId: block.callId, name: block.name, args: block.args }]
          : [],
      )
      // As the wire carries it: text only; earlier reasoning is not sent back (chat-request.ts).
      const content = message.blocks
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('')
      return {
        role: 'assistant',
        seq: message.seq,
        content,
        tokens,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(message.isInterrupted ? { kind: 'interrupted' } : {}),
      }
    }
  }
}

/** The server's prompt count: the usage of the answer to this request, in the same step. */
function reportedInputTokens(
  store: Store,
  sessionId: string,
  start: LogEventOf<'request/start'>,
): number | undefined {
  const [next] = store.readEvents(sessionId, {
    fromSeq: start.seq + 1,
    turn: start.turn,
    step: start.step,
    types: ['assistant/message', 'request/start'],
    limit: 1,
  })
  // Another request/start first means this one got no answer (a retry followed it).
  if (next?.type !== 'assistant/message') return undefined
  const answer = rowToEvent(next, next.seq)
  return answer.type === 'assistant/message' ? answer.data.usage?.inputTokens : undefined
}
