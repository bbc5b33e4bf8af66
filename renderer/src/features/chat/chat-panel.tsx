import { useVirtualizer } from '@tanstack/react-virtual'
import { Download } from 'lucide-react'
import { useEffect, useMemo, useRef, useState } from 'react'
import type { ApprovalRequest } from '../../../../protocol/contract'
import { callKey } from '../../state/event-selectors'
import { useShell } from '../../state/shell-context'
import { IconButton } from '../../ui/icon-button'
import type { SessionPanelProps } from '../feed'
import { ApprovalPrompt } from './approval-prompt'
import { ChatRow } from './chat-row'
import { CodeModeSwitch } from './code-mode-switch'
import { ContextMeter } from './context-meter'
import { CutBanner } from './cut-banner'
import { RowStateContext } from './row-state'
import type { ChatItem } from './items'
import { itemIndexForSeq, RUN_CODE } from './items'
import type { MessageActions } from './messages'
import { ModelBadge } from './model-badge'
import { PlainRow } from './plain-row'
import { useChatItems } from './use-chat-items'
import { useChatKeys } from './use-chat-keys'
import { useFlyingPast, useUserMoving } from './use-flying-past'
import { useFollowEnd } from './use-follow-end'
import { useTailStatus } from './use-tail-status'
import { useWarmRows } from './use-warm-rows'
import { useFeedWindow } from './use-feed-window'
import './chat.css'

/**
 * The conversation of the open session, virtualised: only the rows in view (and a few around)
 * are in the DOM, each measured once rendered, so a 10k-message session scrolls like a short
 * one. The rows are a window over the history (use-feed-window.ts): pages are read as the view
 * nears its edges and let go of far from it. While the user is at the bottom the view follows
 * new rows and streamed text; scrolling up (wheel, keys, scrollbar) lets go until they come back
 * down or press "Jump to latest".
 */
export function ChatPanel({
  api,
  feed,
  selectedSeq,
  onSelectSeq,
  onOpenSession,
  onShowPanel,
}: SessionPanelProps) {
  const items = useChatItems(feed)
  const sessionId = feed.session.id
  const setExportSession = useShell((s) => s.setExportSession)
  // Opened cards stay open when virtualisation unmounts and remounts them; per session.
  const rowState = useMemo(() => new Map<string, unknown>(), [sessionId])
  const eventsNow = useRef(feed.events)
  eventsNow.current = feed.events
  const [editingSeq, setEditingSeq] = useState<number | undefined>()
  const openRestore = useShell((s) => s.openRestore)
  const reachBack = useShell((s) => s.reachBack)
  const loadOlder = useShell((s) => s.loadOlder)
  const loadNewer = useShell((s) => s.loadNewer)
  const loadLatest = useShell((s) => s.loadLatest)
  const trimFeed = useShell((s) => s.trimFeed)
  const windowOps = useMemo(
    () => ({ loadOlder, loadNewer, trimFeed }),
    [loadOlder, loadNewer, trimFeed],
  )
  useEffect(() => setEditingSeq(undefined), [sessionId])
  const actions = useMemo<MessageActions>(
    () => ({
      api,
      sessionId,
      onSelectSeq,
      onOpenSession,
      onShowPanel,
      onEdit: setEditingSeq,
      events: () => eventsNow.current,
      reachBack,
      openRestore,
    }),
    [api, sessionId, onSelectSeq, onOpenSession, onShowPanel, openRestore, reachBack],
  )
  const pendingByCall = useMemo(() => {
    const byCall = new Map<string, ApprovalRequest>()
    for (const request of feed.pendingApprovals) byCall.set(callKey(request), request)
    return byCall
  }, [feed.pendingApprovals])
  const pendingInnerByCall = usePendingInner(items, feed.pendingApprovals)
  const orphanApprovals = useOrphanApprovals(items, feed.pendingApprovals)
  const tailStatus = useTailStatus(feed)
  const isWorking = feed.isRunning && items.at(-1)?.kind !== 'streaming'

  const scroller = useRef<HTMLDivElement>(null)
  // The virtualizer asks every row's key and size each time a row is measured: answer from
  // arrays built once per change of rows, not by recomputing them 10k times a frame.
  const { keys, estimates } = useMemo(
    () => ({ keys: items.map((item) => item.key), estimates: items.map(estimateHeight) }),
    [items],
  )
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => estimates[index] ?? 80,
    getItemKey: (index) => keys[index] ?? index,
    // Rows are cheap to bring in now (use-warm-rows.ts parses them ahead): a few are enough.
    overscan: 3,
  })
  const totalSize = virtualizer.getTotalSize()
  const virtualRows = virtualizer.getVirtualItems()
  const last = items.at(-1)
  const liveLength = last?.kind === 'streaming' ? last.text.length + last.reasoning.length : 0

  const content = useMemo(
    () => ({ items, liveLength, totalSize, isWorking }),
    [items, liveLength, totalSize, isWorking],
  )
  const isUserMoving = useUserMoving(scroller)
  const { isStuck, isAway, setStuck, handlers } = useFollowEnd(
    scroller,
    sessionId,
    content,
    feed.hasNewer,
    isUserMoving,
  )
  useFeedWindow(scroller, virtualizer, items, feed, windowOps)
  const isFlying = useFlyingPast(virtualizer, items, isStuck, isUserMoving)
  useWarmRows(items, isFlying ? [] : virtualRows)
  // Back to the end (a jump, or a turn started) while the newest pages were let go: read the tail.
  const wantsLatest = feed.hasNewer && (isStuck || feed.isRunning)
  useEffect(() => {
    if (wantsLatest) void loadLatest()
  }, [wantsLatest, loadLatest])
  const [keyError, setKeyError] = useState<string | undefined>()
  useEffect(() => setKeyError(undefined), [sessionId])
  // Brings a message into view, leaving the end (a key acting on a message scrolled out).
  const reveal = (seq: number) => {
    const index = itemIndexForSeq(items, seq)
    if (index === undefined) return
    setStuck(false)
    virtualizer.scrollToIndex(index, { align: 'center' })
  }
  useChatKeys(actions, items, selectedSeq, reveal, setKeyError)

  const selectedIndex = selectedSeq === undefined ? undefined : itemIndexForSeq(items, selectedSeq)
  const isSelectionShown = selectedIndex !== undefined
  // A selection made elsewhere (the timeline) brings its message into view, once its page is in.
  useEffect(() => {
    if (selectedSeq === undefined || selectedIndex === undefined) return
    setStuck(false)
    virtualizer.scrollToIndex(selectedIndex, { align: 'center' })
    // Only a new selection, or its row arriving, scrolls (items and virtualizer are left out of
    // the deps on purpose): rows arriving later must not pull the view back to it.
  }, [selectedSeq, isSelectionShown])

  return (
    <RowStateContext value={rowState}>
      <div className="chat-panel">
        <div className="chat-status-bar">
          {feed.profile !== undefined && (
            <ModelBadge key={sessionId} profile={feed.profile} onShowPanel={onShowPanel} />
          )}
          <CodeModeSwitch api={api} sessionId={sessionId} isLoggedOn={tailStatus.isCodeModeOn} />
          <ContextMeter tokens={tailStatus.promptTokens} window={tailStatus.contextWindow} />
          <IconButton
            className="ghost chat-export"
            isLabelShown
            icon={<Download size={14} aria-hidden="true" />}
            label="Export…"
            hint="Save this session as an HTML page or a Markdown file"
            onClick={() => setExportSession(sessionId)}
          />
        </div>
        <CutBanner sessionId={sessionId} cut={tailStatus.cut} onShowPanel={onShowPanel} />
        {keyError !== undefined && (
          <p className="chat-key-error" role="alert">
            {keyError}
          </p>
        )}
        <div
          ref={scroller}
          className="chat-scroll"
          role="log"
          aria-label="Conversation"
          aria-busy={feed.isLoading}
          tabIndex={-1}
          {...handlers}
        >
          {items.length === 0 && <EmptyState isLoading={feed.isLoading} />}
          <div className="chat-rows" style={{ height: totalSize }}>
            {virtualRows.map((row) => {
              const item = items[row.index]
              if (!item) return null
              if (isFlying) {
                // Its known height, so the rows keep their places when the full rows return.
                return (
                  <div
                    key={row.key}
                    data-index={row.index}
                    className="chat-row chat-row-plain"
                    style={{ transform: `translateY(${row.start}px)`, height: row.size }}
                  >
                    <PlainRow item={item} />
                  </div>
                )
              }
              return (
                <div
                  key={row.key}
                  data-index={row.index}
                  ref={virtualizer.measureElement}
                  className="chat-row"
                  style={{ transform: `translateY(${row.start}px)` }}
                >
                  <ChatRow
                    item={item}
                    isSelected={
                      selectedIndex === row.index &&
                      (item.kind === 'user' || item.kind === 'assistant')
                    }
                    isEditing={item.kind === 'user' && item.seq === editingSeq}
                    actions={actions}
                    pending={item.kind === 'tool' ? pendingByCall.get(item.call.key) : undefined}
                    pendingInner={
                      item.kind === 'tool' ? pendingInnerByCall.get(item.call.key) : undefined
                    }
                  />
                </div>
              )
            })}
          </div>
          {orphanApprovals.map((request) => (
            <div key={callKey(request)} className="chat-tail">
              <ApprovalPrompt api={api} request={request} />
            </div>
          ))}
          {feed.childApprovals.map((request) => (
            <div key={`${request.sessionId}:${callKey(request)}`} className="chat-tail">
              <ApprovalPrompt api={api} request={request} />
            </div>
          ))}
          {isWorking && (
            <p className="chat-tail working muted" role="status">
              <span className="running-dot" aria-hidden="true" />
              {feed.pendingApprovals.length + feed.childApprovals.length > 0
                ? 'Waiting for your answer'
                : 'Working…'}
            </p>
          )}
        </div>
        {!isStuck && isAway && (
          <button type="button" className="jump-latest" onClick={() => setStuck(true)}>
            Jump to latest ↓
          </button>
        )}
      </div>
    </RowStateContext>
  )
}

function EmptyState({ isLoading }: { readonly isLoading: boolean }) {
  return isLoading ? (
    <p className="muted chat-empty">Loading the history…</p>
  ) : (
    <p className="muted chat-empty">No messages yet. Type one below to start.</p>
  )
}

/** Pending requests whose call has no card yet (the notification came before the event). */
function useOrphanApprovals(
  items: readonly ChatItem[],
  pending: readonly ApprovalRequest[],
): readonly ApprovalRequest[] {
  return useMemo(() => {
    if (pending.length === 0) return []
    const known = new Set<string>()
    for (const item of items) {
      if (item.kind !== 'tool') continue
      known.add(item.call.key)
      for (const made of item.call.inner ?? []) known.add(made.key)
    }
    return pending.filter((request) => !known.has(callKey(request)))
  }, [items, pending])
}

/**
 * Pending requests of calls another call made (code mode), by the key of the card they show in;
 * a card's list keeps its identity until the pending requests change.
 */
function usePendingInner(
  items: readonly ChatItem[],
  pending: readonly ApprovalRequest[],
): ReadonlyMap<string, readonly ApprovalRequest[]> {
  return useMemo(() => {
    const byCard = new Map<string, ApprovalRequest[]>()
    if (pending.length === 0) return byCard
    const cardOf = new Map<string, string>()
    for (const item of items) {
      if (item.kind !== 'tool') continue
      for (const made of item.call.inner ?? []) cardOf.set(made.key, item.call.key)
    }
    for (const request of pending) {
      const card = cardOf.get(callKey(request))
      if (card !== undefined) byCard.set(card, [...(byCard.get(card) ?? []), request])
    }
    return byCard
  }, [items, pending])
}

/** A first guess at a row's height before it is measured; closer guesses mean less jumping. */
function estimateHeight(item: ChatItem | undefined): number {
  switch (item?.kind) {
    case 'user':
      return 56 + Math.min(400, Math.floor(item.text.length / 90) * 20)
    case 'assistant':
      return 64 + Math.min(1200, Math.floor(item.text.length / 90) * 21)
    case 'tool':
      // A program's card shows its code and a row per call it made.
      return item.call.name === RUN_CODE ? 360 + 30 * (item.call.inner?.length ?? 0) : 140
    case 'changes':
      return 80 + item.files.length * 28
    case 'turn-end':
      return 30
    case 'context':
    case 'checkpoint':
      return 32
    case 'notice':
      return 40
    case undefined:
      return 60
    default:
      return 64
  }
}
