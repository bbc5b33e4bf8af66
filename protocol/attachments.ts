/**
 * What a user message may carry besides its words: the text of a project file, or an image. The
 * log holds them as the model saw them (a file's text as read at send time, an image's bytes), so
 * a request re-derived from the log is the request that was sent. Pure zod, like the rest of
 * `protocol/`; the limits are here because both sides check them (the composer before sending,
 * the host again when the call arrives).
 */
import { z } from 'zod'

/** A text file's size limit, in bytes of UTF-8. */
export const MAX_FILE_ATTACHMENT_BYTES = 256 * 1024
/** An image's size limit, in decoded bytes. */
export const MAX_IMAGE_ATTACHMENT_BYTES = 4 * 1024 * 1024
/** How many attachments one message may carry. */
export const MAX_ATTACHMENTS = 8
/** The image types sent as image content parts; the ones every vision server decodes. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const

/** Base64 of at most `bytes` decoded bytes (4 characters for every 3 bytes, padded). */
const base64Of = (bytes: number) =>
  z
    .string()
    .min(1)
    .max(Math.ceil(bytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')

/** A project file's text as the host read it, `path` relative to the project folder. */
export const FileAttachment = z.object({
  kind: z.literal('file'),
  path: z.string().min(1).max(4096),
  text: z.string(),
})
export type FileAttachment = z.infer<typeof FileAttachment>

export const ImageAttachment = z.object({
  kind: z.literal('image'),
  mime: z.enum(IMAGE_MIME_TYPES),
  /** The image's bytes in base64 (no `data:` prefix). */
  data: base64Of(MAX_IMAGE_ATTACHMENT_BYTES),
})
export type ImageAttachment = z.infer<typeof ImageAttachment>

/** A text resource of an MCP server, as the host read it at send time. */
export const ResourceAttachment = z.object({
  kind: z.literal('resource'),
  server: z.string().min(1),
  uri: z.string().min(1).max(4096),
  text: z.string(),
})
export type ResourceAttachment = z.infer<typeof ResourceAttachment>

/** An attachment as the log holds it (`user/message`, `inbox/queued`). */
export const Attachment = z.discriminatedUnion('kind', [
  FileAttachment,
  ImageAttachment,
  ResourceAttachment,
])
export type Attachment = z.infer<typeof Attachment>

/**
 * An attachment as `turn/send` takes it: a file by its path only (the host reads it, so the log
 * holds what the model saw, not what the renderer thought the file said), an image whole.
 */
export const AttachmentInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: z.string().min(1).max(4096) }).strict(),
  ImageAttachment.strict(),
  z
    .object({
      kind: z.literal('resource'),
      server: z.string().min(1),
      uri: z.string().min(1).max(4096),
    })
    .strict(),
])
export type AttachmentInput = z.infer<typeof AttachmentInput>

/** Model names that accept images, where the server does not say (LLaVA, Qwen-VL, GPT-4o, ...). */
const VISION_NAME =
  /llava|bakllava|moondream|minicpm-v|[-_.:]vl\b|-vl[-_.:]|vision|gpt-4o|gpt-4\.1|gpt-5|pixtral|gemma-?3|llama-?4|claude-3|claude-(sonnet|opus|haiku)/i

/**
 * Whether `model` accepts images: the per-model setting where the user gave one, else a guess
 * from its name; `undefined` when neither says (treated as no, with a hint how to say yes).
 */
export function acceptsImages(model: string, setting: boolean | undefined): boolean | undefined {
  if (setting !== undefined) return setting
  return VISION_NAME.test(model) ? true : undefined
}

/** The `<file path="…">` block a file attachment is to the model (quotes in the path escaped). */
export function fileBlock(file: Pick<FileAttachment, 'path' | 'text'>): string {
  return `<file path="${attribute(file.path)}">\n${withEndingNewline(file.text)}</file>`
}

/** The `<resource server="…" uri="…">` block an MCP resource is to the model. */
export function resourceBlock(resource: Omit<ResourceAttachment, 'kind'>): string {
  return `<resource server="${attribute(resource.server)}" uri="${attribute(resource.uri)}">\n${withEndingNewline(resource.text)}</resource>`
}

function attribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;')
}

function withEndingNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}
