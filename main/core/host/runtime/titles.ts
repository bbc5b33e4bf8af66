/**
 * Session titles made without the user: the first words of the session's first message at once
 * (`words`), then, after its first answered turn, a short title asked of the session's own model in
 * the background (`auto`). Invariants:
 * - a `user` title (a rename) is never replaced; `auto` is never replaced by `words`;
 * - a fork is titled from its own events only (seq >= its fork point), never from the parent's;
 * - a title is its own append, made after the event that prompted it was committed (listeners hear
 *   of events only after commit), never inside another write, and the row's title follows it;
 * - the model's title request is a separate request: it is not logged, so it never takes part in
 *   the session's derived requests; it never delays a turn, and its failures are only reported to
 *   `debug`.
 */
import type { LogEvent } from '../../../../protocol/events.js'
import type { Session } from '../../log/index.js'
import type { ModelAdapter, ModelRequest } from '../../models/types.js'
import type { Store } from '../../store/index.js'

/** The system prompt of a title request; the scripted model server recognises it by this text. */
export const TITLE_SYSTEM_PROMPT =
  'You name chat sessions. Reply with a title of 3 to 6 words that says what the conversation below is about. Reply with the title only: no quotes, no markdown, no punctuation at the end.'
/** A title needs a few tokens; a model that thinks out loud is cut off rather than waited for. */
export const DEFAULT_TITLE_MAX_TOKENS = 64
export const DEFAULT_TITLE_TIMEOUT_MS = 30_000
/** The words title: at most this many words and characters (a tree row's width). */
const WORDS_TITLE_WORDS = 6
const WORDS_TITLE_CHARS = 48
/** An auto title longer than this is not a title (the model answered the question instead). */
const AUTO_TITLE_CHARS = 80
/** How much of the exchange the title request quotes. */
const EXCERPT_CHARS = 1_500

export type TitleSource = 'user' | 'words' | 'auto'

/** The first words of a message as a one-line title without markdown; undefined when none. */
export function wordsTitle(text: string): string | undefined {
  const plain = text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_~#>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  if (plain === '') return undefined
  const words = plain.split(' ')
  let title = words.slice(0, WORDS_TITLE_WORDS).join(' ')
  if (title.length > WORDS_TITLE_CHARS) {
    const cut = title.slice(0, WORDS_TITLE_CHARS - 1)
    const space = cut.lastIndexOf(' ')
    title = `${space > WORDS_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`
  } else if (words.length > WORDS_TITLE_WORDS) {
    title = `${title.replace(/[,.;:!?]+$/, '')}…`
  }
  return title
}

/** A model's reply as a title: reasoning, quotes, a "Title:" label and end punctuation removed. */
export function cleanTitle(reply: string): string | undefined {
  const line = reply
    .replace(/<(think|thinking|reasoning)>[\s\S]*?(<\/\1>|$)/gi, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  if (line === undefined) return undefined
  const title = line
    .replace(/^(title|session title)\s*:\s*/i, '')
    .replace(/[*_`#]+/g, '')
    .replace(/^["'“”‘’«»\s]+|["'“”‘’«»\s]+$/g, '')
    .replace(/[.!?,;:…]+$/, '')
    .replace(/^["'“”‘’«»\s]+|["'“”‘’«»\s]+$/g, '')
    .trim()
  if (title === '' || title.length > AUTO_TITLE_CHARS) return undefined
  return title
}

/** Asks `adapter` for a short title of an exchange; undefined on any failure. Never throws. */
export async function askTitle(
  adapter: ModelAdapter,
  model: string,
  exchange: { readonly user: string; readonly answer: string },
  opts: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
): Promise<{ title?: string; failure?: string }> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? DEFAULT_TITLE_TIMEOUT_MS)
  const onAbort = () => controller.abort()
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  const request: ModelRequest = {
    model,
    messages: [
      { role: 'system', content: TITLE_SYSTEM_PROMPT, seq: 0 },
      {
        role: 'user',
        kind: 'input',
        seq: 0,
        content: `User: ${excerpt(exchange.user)}\n\nAssistant: ${excerpt(exchange.answer)}\n\nTitle:`,
      },
    ],
    tools: [],
    params: { maxTokens: DEFAULT_TITLE_MAX_TOKENS, temperature: 0.2 },
  }
  let text = ''
  try {
    for await (const part of adapter.stream(request, controller.signal)) {
      if (part.type === 'text') text += part.text
      else if (part.type === 'text-is-reasoning') text = ''
      else if (part.type === 'error') return { failure: part.error.message }
    }
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) }
  } finally {
    clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onAbort)
  }
  const title = cleanTitle(text)
  return title === undefined ? { failure: `not a title: ${JSON.stringify(text)}` } : { title }
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line
}

export interface TitleWatchOptions {
  readonly store: Store
  /** The session's model, asked for the `auto` title; absent: words titles only (the CLI). */
  readonly ask?: (
    exchange: { readonly user: string; readonly answer: string },
    signal: AbortSignal,
  ) => Promise<{ title?: string; failure?: string }>
  /** Told after a title was logged and put on the row (to announce the change). */
  readonly onTitled?: (title: string, source: TitleSource) => void
  /** Where failures go; never the user's screen. */
  readonly debug?: (message: string) => void
}

/**
 * Titles `session` as its events are committed (see the module comment). Returns the disposer,
 * which also abandons a title request in flight.
 */
export function watchTitles(session: Session, opts: TitleWatchOptions): () => void {
  const ownFrom = opts.store.getSession(session.id)?.forkSeq ?? 0
  let source: TitleSource | undefined
  for (const event of session.slice(ownFrom)) {
    if (event.type === 'session/title') source = event.data.source
  }
  let hasAsked = false
  let isDisposed = false
  const controller = new AbortController()
  const debug = (message: string) => opts.debug?.(`[bridle] title of ${session.id}: ${message}`)

  const write = async (title: string, next: 'words' | 'auto') => {
    if (isDisposed || !isAllowed(source, next)) return
    try {
      const event = session.append('session/title', { title, source: next })
      source = next
      await session.flush()
      opts.store.setTitle(session.id, title, event.at)
      opts.onTitled?.(title, next)
    } catch (error) {
      debug(`not written: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const askNow = async () => {
    const exchange = firstExchange(session, ownFrom)
    if (exchange === undefined || opts.ask === undefined) return
    const { title, failure } = await opts.ask(exchange, controller.signal).catch((e: unknown) => ({
      title: undefined,
      failure: e instanceof Error ? e.message : String(e),
    }))
    if (title === undefined) debug(`the model gave none (${failure ?? 'no reason'})`)
    else await write(title, 'auto')
  }

  const onEvent = (event: LogEvent) => {
    if (event.seq < ownFrom) return
    if (event.type === 'session/title') {
      source = event.data.source
    } else if (
      event.type === 'user/message' &&
      event.data.kind === 'input' &&
      source === undefined
    ) {
      const title = wordsTitle(event.data.content)
      // Its own append, on a later tick: never part of the batch that carried the message.
      if (title !== undefined) setImmediate(() => void write(title, 'words'))
    } else if (
      event.type === 'turn/end' &&
      event.data.reason === 'completed' &&
      !hasAsked &&
      opts.ask !== undefined &&
      (source === undefined || source === 'words')
    ) {
      hasAsked = true
      setImmediate(() => void askNow())
    }
  }
  const unsubscribe = session.subscribe(onEvent)
  return () => {
    isDisposed = true
    controller.abort()
    unsubscribe()
  }
}

function isAllowed(current: TitleSource | undefined, next: 'words' | 'auto'): boolean {
  if (current === undefined) return true
  return current === 'words' && next === 'auto'
}

/** The session's first own user input and the text of the first answer after it. */
function firstExchange(
  session: Session,
  ownFrom: number,
): { user: string; answer: string } | undefined {
  let user: string | undefined
  for (const event of session.slice(ownFrom)) {
    if (event.type === 'user/message' && event.data.kind === 'input' && user === undefined) {
      user = event.data.content
    } else if (event.type === 'assistant/message' && user !== undefined) {
      const answer = event.data.blocks
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('\n')
        .trim()
      if (answer !== '') return { user, answer }
    }
  }
  return user === undefined ? undefined : { user, answer: '' }
}
