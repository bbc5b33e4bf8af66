import { describe, expect, it } from 'vitest'
import {
  base64Bytes,
  formatSize,
} from '../../renderer/src/features/chat/attach/message-attachments'

describe('attachment sizes', () => {
  it('decodes the byte count of base64 with and without padding', () => {
    for (const bytes of [1, 2, 3, 4, 70, 1000]) {
      const data = btoa('x'.repeat(bytes))
      expect(base64Bytes(data)).toBe(bytes)
    }
  })

  it('says sizes in B, KB and MB', () => {
    expect(formatSize(25)).toBe('25 B')
    expect(formatSize(2048)).toBe('2.0 KB')
    expect(formatSize(3 * 1024 * 1024 + 200_000)).toBe('3.2 MB')
  })
})
