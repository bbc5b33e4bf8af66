import { memo } from 'react'
import type { ChatItem } from './items'

/** Enough text to fill a row's box; the rest is cut off by it anyway. */
const PLAIN_TEXT_MAX = 600

/**
 * A row drawn while the chat flies past it (a scroll-bar drag, a jump): its words as plain text
 * in the row's known height, without markdown, cards or buttons. Building those takes longer
 * than a frame when every row in view is new each frame; the full row takes its place once the
 * scrolling stops (use-flying-past.ts).
 */
export const PlainRow = memo(function PlainRow({ item }: { readonly item: ChatItem }) {
  return (
    <div className="plain-row">
      <span className="plain-row-who">{plainWho(item)}</span>
      <p className="plain-row-text">{plainText(item).slice(0, PLAIN_TEXT_MAX)}</p>
    </div>
  )
})

function plainWho(item: ChatItem): string {
  switch (item.kind) {
    case 'user':
      return 'You'
    case 'assistant':
    case 'streaming':
      return 'Agent'
    case 'tool':
      return item.call.name
    default:
      return ''
  }
}

function plainText(item: ChatItem): string {
  switch (item.kind) {
    case 'user':
    case 'assistant':
    case 'streaming':
    case 'context':
      return item.text
    default:
      return ''
  }
}
