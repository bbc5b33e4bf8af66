/**
 * What an image costs in a prompt. Servers do not tokenize pixels as text, so each family's
 * published rule is applied to the image's size, read from its header:
 * - Anthropic (Claude): `width × height / 750` after scaling the long side down to 1568 px.
 * - Everyone else (OpenAI and the OpenAI-compatible servers we talk to): OpenAI's high-detail
 *   tile rule: fit in 2048 × 2048, scale the short side down to 768, then 85 tokens plus 170 per
 *   512 px tile. Local vision models (LLaVA, Qwen-VL) land in the same hundreds to low thousands.
 * An image whose size cannot be read counts `UNKNOWN_IMAGE_TOKENS`, the tile rule for 1024 × 1024.
 */
import { baseModelName } from './encodings.js'

/** The tile rule's cost of a 1024 × 1024 image: 4 tiles. */
export const UNKNOWN_IMAGE_TOKENS = 765

export interface ImageSize {
  readonly width: number
  readonly height: number
}

/** Tokens of one image (base64 bytes, no `data:` prefix) sent to `model`. */
export function imageTokens(model: string, image: { mime: string; data: string }): number {
  const size = imageSize(image.data)
  if (size === null) return UNKNOWN_IMAGE_TOKENS
  return /^claude/.test(baseModelName(model)) ? anthropicImageTokens(size) : tileImageTokens(size)
}

/** OpenAI's high-detail rule: 85 + 170 per 512 px tile, after the two downscales. */
export function tileImageTokens({ width, height }: ImageSize): number {
  let w = width
  let h = height
  const fit = Math.min(1, 2048 / Math.max(w, h))
  w *= fit
  h *= fit
  const short = Math.min(1, 768 / Math.min(w, h))
  w *= short
  h *= short
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512)
}

/** Anthropic's rule: pixels / 750, the long side first scaled down to 1568 px. */
export function anthropicImageTokens({ width, height }: ImageSize): number {
  const scale = Math.min(1, 1568 / Math.max(width, height))
  return Math.max(1, Math.ceil((width * scale * (height * scale)) / 750))
}

/** A JPEG's size can sit after a large EXIF block; only this much is decoded first. */
const HEAD_CHARS = 64 * 1024

/** Width and height from a PNG, GIF, WebP or JPEG header, or null when it cannot be read. */
export function imageSize(base64: string): ImageSize | null {
  const head = Buffer.from(base64.slice(0, HEAD_CHARS), 'base64')
  const size = headerSize(head)
  if (size !== undefined) return size
  // Only a JPEG whose frame header lies beyond the head needs the whole image.
  return base64.length > HEAD_CHARS && isJpeg(head)
    ? (jpegSize(Buffer.from(base64, 'base64')) ?? null)
    : null
}

function headerSize(b: Buffer): ImageSize | null | undefined {
  if (
    b.length >= 24 &&
    b.readUInt32BE(0) === 0x89504e47 &&
    b.toString('latin1', 12, 16) === 'IHDR'
  ) {
    return valid(b.readUInt32BE(16), b.readUInt32BE(20))
  }
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8') {
    return valid(b.readUInt16LE(6), b.readUInt16LE(8))
  }
  if (
    b.length >= 30 &&
    b.toString('latin1', 0, 4) === 'RIFF' &&
    b.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return webpSize(b)
  }
  if (isJpeg(b)) return jpegSize(b)
  return null
}

const isJpeg = (b: Buffer) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff

function webpSize(b: Buffer): ImageSize | null {
  const chunk = b.toString('latin1', 12, 16)
  if (chunk === 'VP8X') return valid(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3))
  if (chunk === 'VP8 ') return valid(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff)
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21)
    return valid(1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff))
  }
  return null
}

/** Walks the JPEG segments to a start-of-frame; undefined when the buffer ends first. */
function jpegSize(b: Buffer): ImageSize | null | undefined {
  let at = 2
  while (at + 9 <= b.length) {
    if (b[at] !== 0xff) return null
    const marker = b[at + 1] ?? 0
    // Fill bytes, and the markers that stand alone without a length.
    if (marker === 0xff) {
      at += 1
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2
      continue
    }
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return valid(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5))
    }
    at += 2 + b.readUInt16BE(at + 2)
  }
  return undefined
}

const valid = (width: number, height: number): ImageSize | null =>
  width > 0 && height > 0 ? { width, height } : null
