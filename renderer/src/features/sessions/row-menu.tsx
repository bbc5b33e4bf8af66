import * as DropdownMenu from '@radix-ui/react-dropdown-menu'
import { Download, GitFork, History, Pencil, Trash2 } from 'lucide-react'
import { useRef } from 'react'
import type { SessionSummary } from '../../../../protocol/contract'
import { useShell } from '../../state/shell-context'

/**
 * A tree item's actions as a menu, for the keyboard (Shift+F10 or the Menu key on the item) and
 * the pointer (a right click): Rename, Fork, Delete, the same as the row's pointer-only buttons,
 * and Restore files to here (the session's last state) and Export, the shell's dialogs, opened
 * once the focus is back on the item, so it returns there.
 * The menu is anchored to an empty mark at the row's end (inside the item, hidden from its
 * name); its content is portalled out of the tree, so the tree's names stay the items' own.
 * On close the focus goes back to the item unless the choice took it (the rename field, the
 * delete dialog), which `onClosed` decides.
 */
export function RowMenu({
  session,
  title,
  isOpen,
  onOpenChange,
  onRename,
  onDelete,
  onClosed,
}: {
  readonly session: SessionSummary
  readonly title: string
  readonly isOpen: boolean
  readonly onOpenChange: (isOpen: boolean) => void
  readonly onRename: () => void
  readonly onDelete: () => void
  /** After the menu closed: gives the focus back to the item if nothing else took it. */
  readonly onClosed: () => void
}) {
  const forkSession = useShell((s) => s.forkSession)
  const setExportSession = useShell((s) => s.setExportSession)
  const openRestore = useShell((s) => s.openRestore)
  /** The dialog an item chose, opened once the menu has closed. */
  const chosen = useRef<'restore' | 'export' | undefined>(undefined)
  return (
    <DropdownMenu.Root open={isOpen} onOpenChange={onOpenChange} modal={false}>
      <DropdownMenu.Trigger asChild>
        <span className="row-menu-anchor" aria-hidden="true" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          className="row-menu"
          aria-label={`Actions of ${title}`}
          align="end"
          sideOffset={2}
          onClick={(event) => event.stopPropagation()}
          onCloseAutoFocus={(event) => {
            event.preventDefault()
            onClosed()
            const dialog = chosen.current
            chosen.current = undefined
            if (dialog === 'export') setExportSession(session.id)
            if (dialog === 'restore') {
              openRestore({
                kind: 'restore',
                sessionId: session.id,
                toSeq: session.eventCount - 1,
                where: `at the end of this session (event ${session.eventCount - 1})`,
              })
            }
          }}
        >
          <DropdownMenu.Item className="row-menu-item" onSelect={onRename}>
            <Pencil size={14} aria-hidden="true" />
            Rename
            <span className="row-menu-key" aria-hidden="true">
              F2
            </span>
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className="row-menu-item"
            disabled={session.eventCount === 0 || session.isRunning}
            onSelect={() => void forkSession(session.id, session.eventCount)}
          >
            <GitFork size={14} aria-hidden="true" />
            Fork
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className="row-menu-item"
            disabled={session.eventCount === 0 || session.isRunning}
            onSelect={() => {
              chosen.current = 'restore'
            }}
          >
            <History size={14} aria-hidden="true" />
            Restore files to here
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className="row-menu-item"
            onSelect={() => {
              chosen.current = 'export'
            }}
          >
            <Download size={14} aria-hidden="true" />
            Export…
          </DropdownMenu.Item>
          <DropdownMenu.Item className="row-menu-item" onSelect={onDelete}>
            <Trash2 size={14} aria-hidden="true" />
            Delete
            <span className="row-menu-key" aria-hidden="true">
              Delete
            </span>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  )
}
