import { memo } from 'react'
import type { ApprovalRequest } from '../../../../protocol/contract'
import { ChangesCard } from './changes-card'
import { RestoreRow } from './restore-row'
import type { ChatItem } from './items'
import { AssistantMessage, ContextRow, StreamingMessage, UserMessage } from './messages'
import type { MessageActions } from './messages'
import {
  CheckpointRow,
  DeliverableCard,
  ErrorRow,
  NoticeRow,
  RecoveredRow,
  TurnEndRow,
} from './status-rows'
import { SubagentCard } from './subagent-card'
import { isSubagentCall } from './subagent'
import { ToolCard } from './tool-card'

interface ChatRowProps {
  readonly item: ChatItem
  readonly isSelected: boolean
  /** A user message whose editor is open. */
  readonly isEditing: boolean
  readonly actions: MessageActions
  /** The pending request of this row's call, if it is a tool card waiting for the user. */
  readonly pending: ApprovalRequest | undefined
  /** The pending requests of the calls this row's call made (code mode). */
  readonly pendingInner?: readonly ApprovalRequest[] | undefined
}

/** One row of the chat, by item kind. Memoised: items keep their identity until they change. */
export const ChatRow = memo(function ChatRow({
  item,
  isSelected,
  isEditing,
  actions,
  pending,
  pendingInner,
}: ChatRowProps) {
  switch (item.kind) {
    case 'user':
      return (
        <UserMessage item={item} isSelected={isSelected} isEditing={isEditing} actions={actions} />
      )
    case 'assistant':
      return <AssistantMessage item={item} isSelected={isSelected} actions={actions} />
    case 'streaming':
      return <StreamingMessage item={item} />
    case 'context':
      return <ContextRow item={item} />
    case 'tool':
      if (isSubagentCall(item.call)) {
        return (
          <SubagentCard
            api={actions.api}
            call={item.call}
            pending={pending}
            onOpenSession={actions.onOpenSession}
          />
        )
      }
      return (
        <ToolCard
          api={actions.api}
          sessionId={actions.sessionId}
          turn={item.turn}
          call={item.call}
          pending={pending}
          pendingInner={pendingInner}
        />
      )
    case 'changes':
      return <ChangesCard api={actions.api} sessionId={actions.sessionId} item={item} />
    case 'deliverable':
      return <DeliverableCard api={actions.api} sessionId={actions.sessionId} item={item} />
    case 'error':
      return <ErrorRow item={item} />
    case 'notice':
      return <NoticeRow item={item} onShowPanel={actions.onShowPanel} />
    case 'turn-end':
      return <TurnEndRow item={item} />
    case 'recovered':
      return <RecoveredRow item={item} />
    case 'checkpoint':
      return <CheckpointRow item={item} onShowPanel={actions.onShowPanel} />
    case 'restore':
      return (
        <RestoreRow item={item} sessionId={actions.sessionId} onSelectSeq={actions.onSelectSeq} />
      )
  }
})
