/**
 * Images the user pastes or drops, turned into what `turn/send` takes. The host checks them again
 * (size, and whether the model takes images at all); checking the size here too saves sending
 * megabytes only to hear no.
 */
import { IMAGE_MIME_TYPES, MAX_IMAGE_ATTACHMENT_BYTES } from '../../../../../protocol/attachments'
import type { ImageAttachment } from '../../../../../protocol/attachments'

type ImageMime = ImageAttachment['mime']

export const isImageMime = (mime: string): mime is ImageMime =>
  (IMAGE_MIME_TYPES as readonly string[]).includes(mime)

/** The image files among pasted or dropped items. */
export function imageFilesOf(items: DataTransfer | null): File[] {
  if (!items) return []
  return [...items.files].filter((file) => file.type.startsWith('image/'))
}

/** Reads one image, or says in a sentence why it cannot go. */
export async function readImage(
  file: File,
): Promise<
  { ok: true; image: ImageAttachment & { name: string } } | { ok: false; message: string }
> {
  const name = file.name === '' ? 'pasted image' : file.name
  if (!isImageMime(file.type)) {
    return { ok: false, message: `${name} is a ${file.type}; images can be PNG, JPEG, GIF or WebP` }
  }
  if (file.size > MAX_IMAGE_ATTACHMENT_BYTES) {
    const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    return {
      ok: false,
      message: `${name} is ${mb(file.size)}; images can be at most ${mb(MAX_IMAGE_ATTACHMENT_BYTES)}`,
    }
  }
  const bytes = new Uint8Array(await file.arrayBuffer())
  return { ok: true, image: { kind: 'image', mime: file.type, data: toBase64(bytes), name } }
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  const CHUNK = 0x8000
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK))
  }
  return btoa(binary)
}
