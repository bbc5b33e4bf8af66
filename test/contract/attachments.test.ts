import { describe, expect, it } from 'vitest'
import {
  acceptsImages,
  Attachment,
  AttachmentInput,
  fileBlock,
  MAX_IMAGE_ATTACHMENT_BYTES,
} from '../../protocol/attachments.js'
import { eventData } from '../../protocol/events.js'

describe('attachment schemas', () => {
  it('takes files by path and images whole on turn/send, and nothing else', () => {
    expect(AttachmentInput.safeParse({ kind: 'file', path: 'src/a.ts' }).success).toBe(true)
    // The host reads the text: a renderer cannot put words in the file's mouth.
    expect(AttachmentInput.safeParse({ kind: 'file', path: 'a', text: 'x' }).success).toBe(false)
    expect(
      AttachmentInput.safeParse({ kind: 'image', mime: 'image/png', data: 'AAAA' }).success,
    ).toBe(true)
    expect(
      AttachmentInput.safeParse({ kind: 'image', mime: 'image/svg+xml', data: 'AAAA' }).success,
    ).toBe(false)
    expect(
      AttachmentInput.safeParse({ kind: 'image', mime: 'image/png', data: 'not base64!' }).success,
    ).toBe(false)
    const tooBig = 'A'.repeat(Math.ceil(MAX_IMAGE_ATTACHMENT_BYTES / 3) * 4 + 4)
    expect(
      AttachmentInput.safeParse({ kind: 'image', mime: 'image/png', data: tooBig }).success,
    ).toBe(false)
  })

  it('logs attachments on user/message and inbox/queued, optional for old rows', () => {
    const file = { kind: 'file', path: 'a.md', text: 'hi' }
    expect(eventData['user/message'].parse({ content: 'x', attachments: [file] })).toEqual({
      content: 'x',
      kind: 'input',
      attachments: [file],
    })
    expect(eventData['user/message'].parse({ content: 'x' })).toEqual({
      content: 'x',
      kind: 'input',
    })
    const queued = { requestId: 'r', message: 'x', wake: true, attachments: [file] }
    expect(eventData['inbox/queued'].parse(queued)).toEqual(queued)
    expect(Attachment.safeParse({ kind: 'file', path: 'a.md' }).success).toBe(false)
  })
})

describe('acceptsImages', () => {
  it('follows the setting first, then the name, and says unknown otherwise', () => {
    expect(acceptsImages('llava:13b', undefined)).toBe(true)
    expect(acceptsImages('Qwen2.5-VL-7B-Instruct', undefined)).toBe(true)
    expect(acceptsImages('llama-3.2-11b-vision', undefined)).toBe(true)
    expect(acceptsImages('gpt-4o-mini', undefined)).toBe(true)
    expect(acceptsImages('qwen3:8b', undefined)).toBeUndefined()
    expect(acceptsImages('qwen3:8b', true)).toBe(true)
    expect(acceptsImages('llava', false)).toBe(false)
  })
})

describe('fileBlock', () => {
  it('wraps the text in a <file> tag with the path quoted safely', () => {
    expect(fileBlock({ path: 'a "b".md', text: 'one\n' })).toBe(
      '<file path="a &quot;b&quot;.md">\none\n</file>',
    )
    expect(fileBlock({ path: 'c.md', text: 'no newline' })).toBe(
      '<file path="c.md">\nno newline\n</file>',
    )
  })
})
