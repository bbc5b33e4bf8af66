import { History } from 'lucide-react'
import { memo, useEffect, useRef, useState } from 'react'
import type { KeyboardEvent, ReactNode } from 'react'
import type { BridleApi, EventDto } from '../../../../protocol/contract'
import type { RestoreRequest } from '../../state/restore-request'
import { IconButton } from '../../ui/icon-button'
import { eventWhere } from '../../state/restore-words'
import type { DrawerPanel } from '../feed'
import { MessageAttachments } from './attach/message-attachments'
import type { ChatItem } from './items'
import { MarkdownText } from './markdown'
import { useRowState } from './row-state'
import { CONTEXT_LABEL, NOTICE_LABEL } from './plain-words'
import {
  continueAnswer,
  ContinueIcon,
  CopyAction,
  EditIcon,
  regenerateAnswer,
  RegenerateIcon,
  resendFrom,
} from './message-actions'

type Item<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>

/** How long (ms) the pointer rests on a message before its buttons are built. */
const POINTER_REST_MS = 80

/** What a message row needs to select itself, fork, and point at the timeline. */
export interface MessageActions {
  readonly api: BridleApi
  readonly sessionId: string
  readonly onSelectSeq: (seq: number | undefined) => void
  readonly onOpenSession: (sessionId: string) => void
  /**
   * Opens the editor of the user message at `seq` (one at a time), or closes it (undefined).
   * Kept by the panel, so a key can open it while the message is scrolled out of the list.
   */
  readonly onEdit: (seq: number | undefined) => void
  readonly onShowPanel: (panel: DrawerPanel) => void
  /** The feed's events now (a getter, so the actions keep their identity as the log grows). */
  readonly events: () => readonly EventDto[]
  /** Reads older pages until the feed holds `seq` (what a fork point needs before a message). */
  readonly reachBack: (seq: number) => Promise<void>
  /** Opens "Restore files" (a message's "Restore files to here", Edit and Regenerate's offer). */
  readonly openRestore: (request: RestoreRequest) => void
}

interface MessageFrameProps {
  readonly seq: number
  readonly who: string
  readonly className: string
  readonly isSelected: boolean
  readonly actions: MessageActions
  /** The message's own buttons (Edit, Copy, Regenerate, Continue), before "Fork from here". */
  readonly tools?: ReactNode
  /** What one of those buttons failed with, to show under the message. */
  readonly toolError?: string | undefined
  readonly children: ReactNode
}

/**
 * A message that can be selected (a click, or Enter on it): the selection is shared with the
 * timeline, which is offered to show the message's events. "Fork from here" makes a session
 * whose history ends just after this message (`atSeq` is the next seq, so the message is in it).
 *
 * Its buttons show only while the pointer or the focus is on it, or it is selected (chat.css):
 * they are built the first time one of those happens, not for every row scrolled past (each
 * has a tooltip, and together they were most of the cost of a row coming into view). The pointer
 * counts once it rests on the message a moment: scrolling with the wheel moves every row past
 * the pointer, and those must stay cheap.
 */
function MessageFrame({
  seq,
  who,
  className,
  isSelected,
  actions,
  tools,
  toolError,
  children,
}: MessageFrameProps) {
  const [forkError, setForkError] = useState<string | undefined>()
  const [isForking, setForking] = useState(false)
  const [hasBeenActive, setBeenActive] = useState(false)
  const activate = () => {
    if (!hasBeenActive) setBeenActive(true)
  }
  const resting = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const stopResting = () => {
    clearTimeout(resting.current)
    resting.current = undefined
  }
  const startResting = () => {
    if (!hasBeenActive && resting.current === undefined) {
      resting.current = setTimeout(activate, POINTER_REST_MS)
    }
  }
  useEffect(() => stopResting, [])
  const isActive = hasBeenActive || isSelected
  const select = () => actions.onSelectSeq(isSelected ? undefined : seq)
  const fork = async () => {
    setForking(true)
    setForkError(undefined)
    try {
      const result = await actions.api.call('session/fork', {
        sessionId: actions.sessionId,
        atSeq: seq + 1,
      })
      if (result.ok) actions.onOpenSession(result.value.id)
      else setForkError(`Could not fork: ${result.error.message}`)
    } catch (error) {
      setForkError(`Could not fork: ${String(error)}`)
    } finally {
      setForking(false)
    }
  }
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.target === event.currentTarget && event.key === 'Enter') select()
  }
  return (
    <article
      className={`msg ${className}${isSelected ? ' msg-selected' : ''}`}
      aria-label={`${who}, event ${seq}`}
      aria-current={isSelected ? 'true' : undefined}
      tabIndex={0}
      onClick={(event) => {
        // Clicks on the message's own controls (copy, links, reasoning) are not a selection.
        if (!(event.target instanceof Element) || !event.target.closest('button, a, summary')) {
          select()
        }
      }}
      onKeyDown={onKeyDown}
      onPointerEnter={startResting}
      onPointerLeave={stopResting}
      onFocus={activate}
    >
      <div className="msg-head">
        <span className="msg-who">{who}</span>
        <span className="msg-actions">
          {isActive && (
            <>
              {tools}
              <IconButton
                className="icon msg-action"
                label="Restore files to here"
                hint="Put the project's files back to how they were at this message"
                icon={<History size={15} aria-hidden />}
                onClick={() => actions.openRestore(restoreHere(actions, seq))}
              />
              {isSelected && (
                <button
                  type="button"
                  className="icon"
                  onClick={() => actions.onShowPanel('timeline')}
                >
                  Show in timeline
                </button>
              )}
              <button
                type="button"
                className="icon"
                disabled={isForking}
                title="A new session with the history up to and including this message"
                onClick={() => void fork()}
              >
                Fork from here
              </button>
            </>
          )}
        </span>
      </div>
      {children}
      {toolError !== undefined && (
        <p role="alert" className="error-row">
          {toolError}
        </p>
      )}
      {forkError !== undefined && (
        <p role="alert" className="error-row">
          {forkError}
        </p>
      )}
    </article>
  )
}

/** "Restore files to here" on a message: the files as they were right after it was logged. */
function restoreHere(actions: MessageActions, seq: number): RestoreRequest {
  const event = actions.events().find((candidate) => candidate.seq === seq)
  return {
    kind: 'restore',
    sessionId: actions.sessionId,
    toSeq: seq,
    where: event === undefined ? `right after event ${seq}` : eventWhere(event),
  }
}

interface RowProps<K extends ChatItem['kind']> {
  readonly item: Item<K>
  readonly isSelected: boolean
  readonly actions: MessageActions
}

const isString = (value: unknown): value is string => typeof value === 'string'

export const UserMessage = memo(function UserMessage({
  item,
  isSelected,
  actions,
  isEditing,
}: RowProps<'user'> & { readonly isEditing: boolean }) {
  // The edited text outlives the row (the list is virtualised); closing the editor resets it.
  const [draft, setDraft] = useRowState(`edit:${item.seq}`, item.text, isString)
  const [error, setError] = useState<string | undefined>()
  const [isBusy, setBusy] = useState(false)
  const close = () => {
    setDraft(item.text)
    actions.onEdit(undefined)
  }
  const send = async (text: string) => {
    setBusy(true)
    setError(undefined)
    try {
      const outcome = await resendFrom(actions, item.seq, text)
      // Cancelled (the restore offer's Cancel): the editor stays open with the text.
      if (outcome.status === 'failed') setError(outcome.message)
      if (outcome.status === 'sent') close()
    } catch (caught) {
      setError(`Could not send the edit: ${String(caught)}`)
    } finally {
      setBusy(false)
    }
  }
  const tools = (
    <>
      <IconButton
        className="icon msg-action"
        label="Edit message"
        hint="Edit and resend: a new branch from just before this message"
        icon={<EditIcon />}
        disabled={isEditing}
        onClick={() => actions.onEdit(item.seq)}
      />
      <CopyAction text={item.text} what="message" />
    </>
  )
  return (
    <MessageFrame
      seq={item.seq}
      who="You"
      className="msg-user"
      isSelected={isSelected}
      actions={actions}
      tools={tools}
      toolError={error}
    >
      {!isEditing ? (
        <>
          <div className="msg-text user-text">{item.text}</div>
          {item.attachments && <MessageAttachments attachments={item.attachments} />}
        </>
      ) : (
        <form
          className="msg-edit"
          onSubmit={(event) => {
            event.preventDefault()
            if (draft.trim() !== '') void send(draft)
          }}
        >
          <textarea
            aria-label="Edited message"
            value={draft}
            rows={Math.min(12, Math.max(2, draft.split('\n').length))}
            autoFocus
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') close()
            }}
          />
          <div className="row">
            <button type="submit" className="primary" disabled={isBusy || draft.trim() === ''}>
              Send edit
            </button>
            <button type="button" disabled={isBusy} onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </MessageFrame>
  )
})

export const AssistantMessage = memo(function AssistantMessage({
  item,
  isSelected,
  actions,
}: RowProps<'assistant'>) {
  const [error, setError] = useState<string | undefined>()
  const [isBusy, setBusy] = useState(false)
  const run = async (action: () => Promise<string | undefined>) => {
    setBusy(true)
    setError(undefined)
    try {
      setError(await action())
    } catch (caught) {
      setError(String(caught))
    } finally {
      setBusy(false)
    }
  }
  const canContinue = item.isInterrupted || item.finish === 'max-tokens'
  const tools = (
    <>
      <CopyAction text={item.text} what="answer" />
      <IconButton
        className="icon msg-action"
        label="Regenerate answer"
        hint="Ask again: a new branch that resends the message this answers"
        icon={<RegenerateIcon />}
        disabled={isBusy}
        onClick={() =>
          void run(async () => {
            const outcome = await regenerateAnswer(actions, item.seq)
            return outcome.status === 'failed' ? outcome.message : undefined
          })
        }
      />
      {canContinue && (
        <IconButton
          className="icon msg-action"
          label="Continue answer"
          hint="Ask the model to go on from where it stopped (sent as a message)"
          icon={<ContinueIcon />}
          disabled={isBusy}
          onClick={() => void run(() => continueAnswer(actions))}
        />
      )}
    </>
  )
  return (
    <MessageFrame
      seq={item.seq}
      who="Agent"
      className={`msg-assistant${item.isInterrupted ? ' msg-interrupted' : ''}`}
      isSelected={isSelected}
      actions={actions}
      tools={tools}
      toolError={error}
    >
      {item.reasoning !== '' && <Reasoning text={item.reasoning} />}
      {item.text.trim() !== '' ? (
        <MarkdownText text={item.text} />
      ) : (
        !item.isInterrupted && item.reasoning === '' && <p className="muted">(no text)</p>
      )}
      {item.isInterrupted && (
        <p className="msg-badge badge-interrupted">
          Interrupted: the answer stopped here{item.text.trim() === '' ? ' before any text' : ''}.
        </p>
      )}
      {item.finish === 'max-tokens' && (
        <p className="msg-badge badge-interrupted">
          Cut off at the model's output limit (max tokens).
        </p>
      )}
    </MessageFrame>
  )
})

/** The step streaming now: the same markdown, re-rendered per delta, with a caret. */
export function StreamingMessage({ item }: { readonly item: Item<'streaming'> }) {
  return (
    <article
      className="msg msg-assistant msg-streaming"
      aria-label="Agent, answering"
      aria-busy="true"
    >
      <div className="msg-head">
        <span className="msg-who">Agent</span>
        <span className="muted msg-live">
          <span className="running-dot" aria-hidden="true" />
          {item.text === '' ? 'thinking' : 'writing'}
        </span>
      </div>
      {item.reasoning !== '' && <Reasoning text={item.reasoning} isLive={item.text === ''} />}
      {item.text !== '' && <MarkdownText text={item.text} />}
    </article>
  )
}

/**
 * The model's reasoning, folded: it is long and mostly for the curious. While the model is
 * still only reasoning it is open, so the user sees it is working.
 */
function Reasoning({ text, isLive = false }: { readonly text: string; readonly isLive?: boolean }) {
  return (
    <details className="reasoning" open={isLive}>
      <summary>{isLive ? 'Reasoning…' : 'Reasoning'}</summary>
      <div className="reasoning-text">{text}</div>
    </details>
  )
}

/**
 * What Bridle, not the user, said to the model: volatile context (date, git status), or a notice
 * about the model's own last reply (cut off, its calls dropped). Not the user's words, so kept
 * small and folded.
 */
export function ContextRow({ item }: { readonly item: Item<'context'> }) {
  const isNotice = item.purpose === 'notice'
  return (
    <details className={isNotice ? 'context-row told-row' : 'context-row'}>
      <summary>{isNotice ? NOTICE_LABEL : CONTEXT_LABEL}</summary>
      <pre className="context-text">{item.text}</pre>
    </details>
  )
}
