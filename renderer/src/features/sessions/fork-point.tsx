import * as Tooltip from '@radix-ui/react-tooltip'
import { useState } from 'react'
import type { ReactNode } from 'react'
import type { EventDto, SessionSummary } from '../../../../protocol/contract'
import { forkPointText } from '../../state/session-tree'
import { useShellContext } from '../../state/shell-context'

/** Pages of the parent's messages read to find the fork point; messages are few per page. */
const MAX_PAGES = 20

type Loaded = { readonly status: 'loading' } | { readonly status: 'done'; readonly text: string }

/**
 * A fork's branch marker: hovering it says where the fork leaves its parent, as the message it
 * starts after. The parent's messages are read when the tooltip first opens, not for every row.
 */
export function ForkPoint({
  session,
  children,
}: {
  readonly session: SessionSummary
  readonly children: ReactNode
}) {
  const { api } = useShellContext()
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined)
  const { parentId, forkSeq } = session
  const readPage = (params: {
    sessionId: string
    fromSeq: number
    toSeq: number
    types: string[]
  }) => api.call('session/events', params)

  const load = async () => {
    if (loaded !== undefined || parentId === null || forkSeq === null) return
    setLoaded({ status: 'loading' })
    const events: EventDto[] = []
    let fromSeq: number | null = 0
    for (let page = 0; page < MAX_PAGES && fromSeq !== null; page++) {
      const result: Awaited<ReturnType<typeof readPage>> = await readPage({
        sessionId: parentId,
        fromSeq,
        toSeq: forkSeq,
        types: ['user/message', 'assistant/message'],
      })
      if (!result.ok) {
        setLoaded({ status: 'done', text: `Could not read the parent: ${result.error.message}` })
        return
      }
      events.push(...result.value.events)
      fromSeq = result.value.nextSeq
    }
    const text = forkPointText(events) ?? 'Forked before the first message.'
    setLoaded({ status: 'done', text })
  }

  if (parentId === null || forkSeq === null) return <>{children}</>
  return (
    <Tooltip.Root
      delayDuration={300}
      onOpenChange={(isOpen) => {
        if (isOpen) void load()
      }}
    >
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="fork-tip" side="right" sideOffset={6} collisionPadding={8}>
          <span className="fork-tip-head">Forked after event #{forkSeq - 1}</span>
          <span className="fork-tip-text">
            {loaded?.status === 'done' ? loaded.text : 'Reading the fork point…'}
          </span>
          <Tooltip.Arrow className="fork-tip-arrow" />
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  )
}
