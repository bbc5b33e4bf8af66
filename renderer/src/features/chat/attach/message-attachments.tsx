/**
 * What a sent user message carried, shown from its logged `user/message` event (so a reload
 * shows the same): files as chips with their name and size, images as thumbnails that open
 * larger in a dialog. The bytes are the log's; nothing is fetched.
 */
import * as Dialog from '@radix-ui/react-dialog'
import { FileText, Plug, X } from 'lucide-react'
import { useState } from 'react'
import type { Attachment, ImageAttachment } from '../../../../../protocol/attachments'
import { useDialogFocus } from '../../../state/use-dialog-focus'
import { baseName } from './complete'

/** A size for people: bytes under a kilobyte, then KB and MB with one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** Decoded bytes of base64 text (3 bytes for every 4 characters, less the padding). */
export const base64Bytes = (data: string): number =>
  Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0)

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

const dataUrl = (image: ImageAttachment): string => `data:${image.mime};base64,${image.data}`

export function MessageAttachments({
  attachments,
}: {
  readonly attachments: readonly Attachment[]
}) {
  const [shown, setShown] = useState<number | undefined>()
  if (attachments.length === 0) return null
  const images = attachments.filter((a): a is ImageAttachment => a.kind === 'image')
  const open = shown === undefined ? undefined : images[shown]
  return (
    <>
      <ul className="msg-attachments" aria-label="Attachments">
        {attachments.map((attachment, index) => {
          if (attachment.kind === 'file') {
            return (
              <li key={index} className="attach-chip msg-attach-file" title={attachment.path}>
                <FileText size={14} aria-hidden="true" />
                <span className="attach-chip-name">{baseName(attachment.path)}</span>
                <span className="msg-attach-size">{formatSize(utf8Bytes(attachment.text))}</span>
              </li>
            )
          }
          if (attachment.kind === 'resource') {
            return (
              <li
                key={index}
                className="attach-chip msg-attach-file"
                title={`${attachment.uri} from the MCP server ${attachment.server}`}
              >
                <Plug size={14} aria-hidden="true" />
                <span className="attach-chip-name">{attachment.uri}</span>
                <span className="msg-attach-size">{formatSize(utf8Bytes(attachment.text))}</span>
              </li>
            )
          }
          const number = images.indexOf(attachment) + 1
          return (
            <li key={index} className="msg-attach-image">
              <button
                type="button"
                className="msg-attach-thumb"
                aria-label={`Show image ${number} larger (${formatSize(base64Bytes(attachment.data))})`}
                onClick={() => setShown(number - 1)}
              >
                <img src={dataUrl(attachment)} alt={`Image ${number}`} />
              </button>
            </li>
          )
        })}
      </ul>
      <ImageDialog
        image={open}
        title={`Image ${(shown ?? 0) + 1}`}
        onClose={() => setShown(undefined)}
      />
    </>
  )
}

function ImageDialog({
  image,
  title,
  onClose,
}: {
  readonly image: ImageAttachment | undefined
  readonly title: string
  readonly onClose: () => void
}) {
  const focus = useDialogFocus()
  return (
    // Not Radix-modal (its scroll lock's <style> breaks the CSP): useDialogFocus traps focus.
    <Dialog.Root
      open={image !== undefined}
      modal={false}
      onOpenChange={(open) => !open && onClose()}
    >
      <Dialog.Portal>
        <div className="overlay" aria-hidden="true" />
        <Dialog.Content
          {...focus}
          aria-modal="true"
          className="dialog image-dialog"
          aria-describedby={undefined}
        >
          <div className="dialog-head">
            <Dialog.Title>{title}</Dialog.Title>
            <Dialog.Close asChild>
              <button type="button" className="ghost">
                <X size={16} aria-hidden="true" />
                Close
              </button>
            </Dialog.Close>
          </div>
          {image && <img className="image-dialog-img" src={dataUrl(image)} alt={title} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
