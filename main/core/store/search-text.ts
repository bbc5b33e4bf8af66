/**
 * The text of an event that full-text search indexes: what a person would look for later (their
 * own words, the assistant's answers, what tools printed). One implementation, used both by the
 * background batch that indexes new rows and by the v2 migration's backfill, so old and new rows
 * are indexed alike.
 */

/**
 * Returns the searchable text of an event, or undefined when it has none (or only an empty
 * string). `data` is the parsed event data; anything of an unexpected shape gives undefined
 * rather than a throw, because a search index must never stop an append or a migration.
 */
export function searchTextOf(type: string, data: unknown): string | undefined {
  if (!isRecord(data)) return undefined
  switch (type) {
    case 'user/message':
      return nonEmpty(data['content'])
    case 'assistant/message':
      return nonEmpty(assistantText(data['blocks']))
    case 'tool/result':
      if (data['ok'] === true) return nonEmpty(data['output'])
      if (data['ok'] === false && isRecord(data['error'])) return nonEmpty(data['error']['message'])
      return undefined
    default:
      return undefined
  }
}

/** searchTextOf for a stored row, whose data is JSON text. */
export function storedSearchText(type: string, data: string): string | undefined {
  try {
    return searchTextOf(type, JSON.parse(data))
  } catch {
    // The index is derived and only serves search; an unparseable row is reported as CORRUPT
    // by the log when the session is read, so indexing must not fail on it.
    return undefined
  }
}

/** The text blocks joined by newlines; reasoning and tool-call blocks are left out. */
function assistantText(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined
  const texts: string[] = []
  for (const block of blocks as unknown[]) {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') {
      texts.push(block['text'])
    }
  }
  return texts.join('\n')
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
