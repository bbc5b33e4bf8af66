import * as Dialog from '@radix-ui/react-dialog'
import type { ReactNode } from 'react'

/**
 * A panel that slides over the content from one side when the window is too narrow to keep it
 * beside the chat. A modal dialog: focus stays inside, Escape or a click outside closes it.
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
  return (
    <Dialog.Root open={isOpen} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="sheet-overlay" />
        <Dialog.Content className={`sheet sheet-${side}`} aria-describedby={undefined}>
          <Dialog.Title className="visually-hidden">{title}</Dialog.Title>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
