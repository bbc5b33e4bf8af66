import { useMemo, useState } from 'react'
import { lastOfType } from '../../state/event-selectors'
import type { SessionFeed } from '../feed'
import { latestPromptTokens, latestServerCut } from './items'
import { meterWindow } from './known-windows'

/** What the chat's status bar and its cut banner say about where the session is now. */
export interface TailStatus {
  readonly promptTokens: number | undefined
  readonly contextWindow: number | undefined
  /**
   * The last `session/code-mode` in the log: the feed's, else what the session's details read
   * over the whole history (the window may start after the last switch).
   */
  readonly isCodeModeOn: boolean
  readonly cut: ReturnType<typeof latestServerCut>
}

/**
 * The tail status, read from the feed's latest events. While the window has let go of its newest
 * pages (`hasNewer`: the chat scrolled far up), its last events are not the session's: the values
 * read when the window last reached the end are kept, so the status bar does not change with
 * the scrolling.
 */
export function useTailStatus(feed: SessionFeed): TailStatus {
  const { events, contextWindow, codeMode } = feed
  const read = useMemo<TailStatus>(
    () => ({
      promptTokens: latestPromptTokens(events),
      contextWindow: meterWindow(events, contextWindow),
      isCodeModeOn: lastOfType(events, 'session/code-mode')?.data.on ?? codeMode ?? false,
      cut: latestServerCut(events),
    }),
    [events, contextWindow, codeMode],
  )
  const [held, setHeld] = useState(read)
  // Kept from the previous render, as React's guide to derived state does it.
  if (!feed.hasNewer && held !== read) setHeld(read)
  return feed.hasNewer ? held : read
}
