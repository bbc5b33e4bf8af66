import * as Dialog from '@radix-ui/react-dialog'
import type { ReactNode } from 'react'
import { useDialogFocus } from '../../state/use-dialog-focus'

/**
 * A panel that slides over the content from one side when the window is too narrow to keep it
 * beside the chat, as a dialog over it: Escape or a click outside closes it.
 */
export function Sheet({
  side,
  title,
  isOpen,
  onOpenChange,
  children,
}: {
  readonly side: 'left' | 'right'
  readonly title: string
  readonly isOpen: boolean
  readonly onOpenChange: (isOpen: boolean) => void
  readonly children: ReactNode
}) {
  const focus = useDialogFocus()
  return (
    // Not Radix-modal: its scroll lock injects a <style>, which the strict CSP refuses;
    // useDialogFocus keeps focus inside and returns it. Escape or a click outside closes it.
    <Dialog.Root open={isOpen} modal={false} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        {/* The dimmed backdrop (Radix draws its Overlay only for modal dialogs). */}
        <div className="sheet-overlay" aria-hidden="true" />
        <Dialog.Content
          {...focus}
          aria-modal="true"
          className={`sheet sheet-${side}`}
          aria-describedby={undefined}
        >
          <Dialog.Title className="visually-hidden">{title}</Dialog.Title>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
