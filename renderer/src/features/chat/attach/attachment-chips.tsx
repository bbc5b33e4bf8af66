/** The composer's attachments as chips, each with its own remove button. */
import { FileText, Image as ImageIcon, Plug, X } from 'lucide-react'
import { baseName } from './complete'
import type { ComposerAttachment } from './use-attachments'

export interface AttachmentChipsProps {
  readonly attachments: readonly ComposerAttachment[]
  readonly onRemove: (key: string) => void
}

export function AttachmentChips({ attachments, onRemove }: AttachmentChipsProps) {
  if (attachments.length === 0) return null
  return (
    <ul className="attach-chips" aria-label="Attachments">
      {attachments.map((attachment) => {
        const name = attachment.kind === 'file' ? baseName(attachment.path) : attachment.name
        return (
          <li
            key={attachment.key}
            className="attach-chip"
            title={
              attachment.kind === 'resource'
                ? `${attachment.uri} from the MCP server ${attachment.server}`
                : attachment.name
            }
          >
            {attachment.kind === 'file' ? (
              <FileText size={14} aria-hidden="true" />
            ) : attachment.kind === 'resource' ? (
              <Plug size={14} aria-hidden="true" />
            ) : (
              <ImageIcon size={14} aria-hidden="true" />
            )}
            <span className="attach-chip-name">{name}</span>
            <button
              type="button"
              className="attach-chip-remove"
              aria-label={`Remove ${name}`}
              onClick={() => onRemove(attachment.key)}
            >
              <X size={12} aria-hidden="true" />
            </button>
          </li>
        )
      })}
    </ul>
  )
}
