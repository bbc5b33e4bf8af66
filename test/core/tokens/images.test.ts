import { describe, expect, it } from 'vitest'
import { deepFreeze } from '../../../main/core/log/freeze.js'
import type { Message } from '../../../main/core/log/messages.js'
import {
  imageSize,
  imageTokens,
  MESSAGE_OVERHEAD,
  tokenCounter,
  UNKNOWN_IMAGE_TOKENS,
} from '../../../main/core/tokens/index.js'
import { anthropicImageTokens, tileImageTokens } from '../../../main/core/tokens/images.js'

const b64 = (bytes: Buffer) => bytes.toString('base64')

/** A PNG's signature and IHDR chunk: all the counter reads. */
function png(width: number, height: number): string {
  const head = Buffer.alloc(24)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0)
  head.writeUInt32BE(13, 8)
  head.write('IHDR', 12, 'latin1')
  head.writeUInt32BE(width, 16)
  head.writeUInt32BE(height, 20)
  return b64(head)
}

/** A JPEG: SOI, an APP1 segment of `exifBytes`, then a baseline frame header. */
function jpeg(width: number, height: number, exifBytes = 16): string {
  const app1 = Buffer.alloc(4 + exifBytes)
  app1.writeUInt16BE(0xffe1, 0)
  app1.writeUInt16BE(2 + exifBytes, 2)
  const sof = Buffer.alloc(11)
  sof.writeUInt16BE(0xffc0, 0)
  sof.writeUInt16BE(9, 2)
  sof[4] = 8
  sof.writeUInt16BE(height, 5)
  sof.writeUInt16BE(width, 7)
  return b64(Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof]))
}

function gif(width: number, height: number): string {
  const head = Buffer.alloc(10)
  head.write('GIF89a', 0, 'latin1')
  head.writeUInt16LE(width, 6)
  head.writeUInt16LE(height, 8)
  return b64(head)
}

function webpExtended(width: number, height: number): string {
  const head = Buffer.alloc(30)
  head.write('RIFF', 0, 'latin1')
  head.write('WEBP', 8, 'latin1')
  head.write('VP8X', 12, 'latin1')
  head.writeUIntLE(width - 1, 24, 3)
  head.writeUIntLE(height - 1, 27, 3)
  return b64(head)
}

describe('imageSize', () => {
  it('reads PNG, JPEG, GIF and WebP headers', () => {
    expect(imageSize(png(640, 480))).toEqual({ width: 640, height: 480 })
    expect(imageSize(jpeg(1920, 1080))).toEqual({ width: 1920, height: 1080 })
    expect(imageSize(gif(32, 16))).toEqual({ width: 32, height: 16 })
    expect(imageSize(webpExtended(3000, 2000))).toEqual({ width: 3000, height: 2000 })
  })

  it('finds a JPEG frame behind an EXIF block larger than the decoded head', () => {
    expect(imageSize(jpeg(800, 600, 60_000))).toEqual({ width: 800, height: 600 })
  })

  it('says null for bytes that are no image it knows', () => {
    expect(imageSize(b64(Buffer.from('not an image at all, just text')))).toBeNull()
    expect(imageSize(png(0, 10))).toBeNull()
  })
})

describe('imageTokens', () => {
  it("follows OpenAI's tile rule, its documented examples included", () => {
    expect(tileImageTokens({ width: 1024, height: 1024 })).toBe(765)
    expect(tileImageTokens({ width: 2048, height: 4096 })).toBe(1105)
    expect(tileImageTokens({ width: 1, height: 1 })).toBe(255)
    expect(imageTokens('qwen2.5-vl:7b', { mime: 'image/png', data: png(1024, 1024) })).toBe(765)
  })

  it("follows Anthropic's pixel rule for Claude", () => {
    expect(anthropicImageTokens({ width: 1000, height: 1000 })).toBe(1334)
    // The long side is scaled to 1568 first: 1568 x 784 / 750.
    expect(anthropicImageTokens({ width: 4000, height: 2000 })).toBe(1640)
    expect(
      imageTokens('anthropic/claude-sonnet-4', { mime: 'image/png', data: png(1000, 1000) }),
    ).toBe(1334)
  })

  it('counts an image it cannot read as a 1024 x 1024 one', () => {
    expect(imageTokens('gpt-4o', { mime: 'image/png', data: b64(Buffer.from('garbage!')) })).toBe(
      UNKNOWN_IMAGE_TOKENS,
    )
  })
})

describe('the counter with images', () => {
  const user = (images?: { mime: 'image/png'; data: string }[]): Message =>
    deepFreeze({
      role: 'user',
      content: 'What is in this picture?',
      seq: 1,
      kind: 'input',
      ...(images ? { images } : {}),
    })

  it('adds each image of a user message to its count', () => {
    const counter = tokenCounter('llava:13b')
    const plain = counter.countMessages([user()]).perMessage[0] ?? 0
    const withImages = counter.countMessages([
      user([
        { mime: 'image/png', data: png(1024, 1024) },
        { mime: 'image/png', data: png(2048, 4096) },
      ]),
    ])
    expect(plain).toBeGreaterThan(MESSAGE_OVERHEAD)
    expect(withImages.perMessage[0]).toBe(plain + 765 + 1105)
    expect(withImages.total).toBe(counter.countMessages([user()]).total + 765 + 1105)
  })
})
