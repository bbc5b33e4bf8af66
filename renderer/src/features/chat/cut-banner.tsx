import { useLayoutEffect, useRef, useState } from 'react'
import type { DrawerPanel } from '../feed'
import { sentence } from './format'
import type { latestServerCut } from './items'
import './model-status.css'

interface CutBannerProps {
  readonly sessionId: string
  /** The latest turn's cut, if its prompt was cut (items.ts `latestServerCut`). */
  readonly cut: ReturnType<typeof latestServerCut>
  readonly onShowPanel: (panel: DrawerPanel) => void
}

/** Per session, the seq of the last cut the user dismissed (a later cut shows again). */
const STORAGE_PREFIX = 'bridle.dismissed-cut.'

/**
 * A server that cut the prompt without a word (`CONTEXT_TRUNCATED_BY_SERVER`) makes the model
 * forget its instructions and tools: worth more than a row scrolled away, so the latest one stays
 * at the top of the chat, above the conversation (never over it), until dismissed. The error's
 * row in the conversation stays too. The message is long (it ends with the fix): three lines
 * show, the rest on demand, so a narrow window keeps room for the conversation.
 */
export function CutBanner({ sessionId, cut, onShowPanel }: CutBannerProps) {
  const [dismissed, setDismissed] = useState(() => ({
    sessionId,
    seq: readDismissed(sessionId),
  }))
  // Another session opened in the same panel: read its own dismissal.
  const dismissedSeq = dismissed.sessionId === sessionId ? dismissed.seq : readDismissed(sessionId)
  if (cut === undefined || (dismissedSeq !== undefined && dismissedSeq >= cut.seq)) return null

  const dismiss = () => {
    setDismissed({ sessionId, seq: cut.seq })
    try {
      globalThis.localStorage.setItem(STORAGE_PREFIX + sessionId, String(cut.seq))
    } catch {
      // Not remembered across reloads; it stays dismissed until then.
    }
  }

  return (
    <div className="cut-banner" role="region" aria-label="The server cut the prompt">
      <div className="cut-banner-head">
        <span className="cut-banner-icon" role="img" aria-label="Warning">
          ⚠
        </span>
        <strong>The model lost the start of the conversation</strong>
        <span className="cut-banner-actions">
          <button type="button" onClick={() => onShowPanel('settings')}>
            Settings
          </button>
          <button type="button" onClick={dismiss}>
            Dismiss
          </button>
        </span>
      </div>
      <ClampedText key={cut.seq} text={sentence(cut.message)} />
    </div>
  )
}

/** A paragraph cut to a few lines (CSS), with "Show all" when it was cut. */
function ClampedText({ text }: { readonly text: string }) {
  const paragraph = useRef<HTMLParagraphElement>(null)
  const [isOpen, setOpen] = useState(false)
  const [isClamped, setClamped] = useState(false)
  useLayoutEffect(() => {
    const element = paragraph.current
    if (!element || isOpen) return
    const measure = () => setClamped(element.scrollHeight > element.clientHeight + 1)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [isOpen, text])
  return (
    <div className="cut-banner-text">
      <p ref={paragraph} className={isOpen ? undefined : 'is-clamped'}>
        {text}
      </p>
      {(isClamped || isOpen) && (
        <button
          type="button"
          className="link"
          aria-expanded={isOpen}
          onClick={() => setOpen(!isOpen)}
        >
          {isOpen ? 'Show less' : 'Show all'}
        </button>
      )}
    </div>
  )
}

function readDismissed(sessionId: string): number | undefined {
  try {
    const value = Number(globalThis.localStorage.getItem(STORAGE_PREFIX + sessionId) ?? '')
    return Number.isInteger(value) && value > 0 ? value : undefined
  } catch {
    return undefined
  }
}
