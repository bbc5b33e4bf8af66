/**
 * What `turn/send`'s attachments become in the log: a file named by its path is read now, from
 * inside the session's project folder, so the log holds the text the model saw; an image is
 * checked and kept as sent. Everything refused is a HostError with a sentence for the user:
 * ATTACHMENT_REFUSED (too large, binary, too many, images for a model that does not take them)
 * or INVALID_PATH (outside the project, not a file), the codes the composer shows as they are.
 */
import { readFile, stat } from 'node:fs/promises'
import {
  acceptsImages,
  MAX_ATTACHMENTS,
  MAX_FILE_ATTACHMENT_BYTES,
  MAX_IMAGE_ATTACHMENT_BYTES,
} from '../../../../protocol/attachments.js'
import type { Attachment, AttachmentInput } from '../../../../protocol/attachments.js'
import { projectRelative } from '../../tools/builtin/file-helpers.js'
import { resolveInsideProject } from '../../workspace/paths.js'
import { HostError } from '../host.js'

/** The model a message goes to, and what config.json says about its vision (if anything). */
export interface VisionCheck {
  readonly model: string
  readonly visionSetting: boolean | undefined
  readonly endpointId: string
}

/** Reads an MCP server's resource as text; throws a sentence naming the server when it cannot. */
export type ResourceReader = (server: string, uri: string) => Promise<string>

/** Reads and checks the attachments of one message; throws before anything is logged. */
export async function readAttachments(
  projectDir: string,
  inputs: readonly AttachmentInput[],
  target: VisionCheck,
  readResource?: ResourceReader,
): Promise<Attachment[]> {
  if (inputs.length > MAX_ATTACHMENTS) {
    throw refused(`a message can carry at most ${MAX_ATTACHMENTS} attachments`)
  }
  if (inputs.some((input) => input.kind === 'image')) checkVision(target)
  const out: Attachment[] = []
  for (const input of inputs) {
    if (input.kind === 'image') {
      const bytes = Buffer.from(input.data, 'base64').length
      if (bytes > MAX_IMAGE_ATTACHMENT_BYTES) {
        throw refused(
          `an image is ${mb(bytes)}; images can be at most ${mb(MAX_IMAGE_ATTACHMENT_BYTES)}`,
        )
      }
      out.push({ kind: 'image', mime: input.mime, data: input.data })
    } else if (input.kind === 'resource') {
      out.push(await readResourceAttachment(input.server, input.uri, readResource))
    } else {
      out.push(await readFileAttachment(projectDir, input.path))
    }
  }
  return out
}

async function readResourceAttachment(
  server: string,
  uri: string,
  read: ResourceReader | undefined,
): Promise<Attachment> {
  if (!read) throw refused('MCP resources cannot be attached here')
  let text: string
  try {
    text = await read(server, uri)
  } catch (error) {
    throw refused(error instanceof Error ? error.message : String(error))
  }
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_FILE_ATTACHMENT_BYTES)
    throw refused(
      `the resource ${uri} is ${kb(bytes)}; attachments can be at most ${kb(MAX_FILE_ATTACHMENT_BYTES)}`,
    )
  return { kind: 'resource', server, uri, text }
}

function checkVision({ model, visionSetting, endpointId }: VisionCheck): void {
  const accepts = acceptsImages(model, visionSetting)
  if (accepts === true) return
  const hint =
    accepts === undefined
      ? ` (if it does, set "vision": true for it under endpoints.${endpointId}.models in the settings)`
      : ''
  throw refused(
    `${model} does not accept images; remove the image or pick a model that does${hint}`,
  )
}

async function readFileAttachment(projectDir: string, path: string): Promise<Attachment> {
  let absolute: string
  try {
    absolute = resolveInsideProject(projectDir, path)
  } catch (error) {
    throw new HostError('INVALID_PATH', error instanceof Error ? error.message : String(error))
  }
  const shown = projectRelative(projectDir, absolute)
  const info = await stat(absolute).catch(() => undefined)
  if (!info?.isFile()) throw new HostError('INVALID_PATH', `${shown} is not a file in the project`)
  if (info.size > MAX_FILE_ATTACHMENT_BYTES) {
    throw refused(
      `${shown} is ${kb(info.size)}; attached files can be at most ${kb(MAX_FILE_ATTACHMENT_BYTES)} (ask the model to read the part you need instead)`,
    )
  }
  const bytes = await readFile(absolute)
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
  if (bytes.includes(0)) throw refused(`${shown} is a binary file; only text files can be attached`)
  try {
    return { kind: 'file', path: shown, text: text.decode(bytes) }
  } catch {
    throw refused(`${shown} is not UTF-8 text; only text files can be attached`)
  }
}

const refused = (message: string) => new HostError('ATTACHMENT_REFUSED', message)
const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`
