import * as Dialog from '@radix-ui/react-dialog'
import { useRef } from 'react'
import { useShell } from '../../state/shell-context'
import { useDialogFocus } from '../../state/use-dialog-focus'

/**
 * Asks before a session goes to the trash, naming it in full (wrapped, never cut): a row is too
 * narrow to say which session is meant. Its forks stay where they are; the trash restores it.
 */
export function DeleteDialog({
  sessionId,
  title,
  isOpen,
  onClose,
}: {
  readonly sessionId: string
  readonly title: string
  readonly isOpen: boolean
  /** Called when the dialog closes, deleted or not. */
  readonly onClose: () => void
}) {
  const deleteSession = useShell((s) => s.deleteSession)
  const confirm = useRef<HTMLButtonElement>(null)
  const focus = useDialogFocus(confirm)
  return (
    // Radix's modal mode injects a <style> element, which the strict CSP refuses (style-src
    // 'self'): useDialogFocus keeps focus inside instead, and the overlay blocks the page.
    <Dialog.Root open={isOpen} modal={false} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <div className="overlay" aria-hidden="true" />
        <Dialog.Content
          {...focus}
          className="dialog session-dialog"
          role="alertdialog"
          aria-modal="true"
        >
          <Dialog.Title className="session-dialog-title">Move to trash?</Dialog.Title>
          <Dialog.Description className="session-dialog-text">
            <strong className="session-dialog-name">{title}</strong> goes to the trash with its
            history. Its forks stay in the tree, and the trash at the bottom of the sidebar can
            restore it.
          </Dialog.Description>
          <div className="session-dialog-actions">
            <Dialog.Close asChild>
              <button type="button" className="ghost">
                Cancel
              </button>
            </Dialog.Close>
            <button
              type="button"
              ref={confirm}
              className="danger"
              onClick={() => {
                onClose()
                void deleteSession(sessionId)
              }}
            >
              Move to trash
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
