/**
 * Defensive readers for `EventDto.data`, which crosses the bridge as an untyped record (the
 * renderer cannot import the core's schemas). A payload of an unexpected shape reads as empty
 * values, never as a throw: a chat must render whatever the log holds.
 */

export type Data = Readonly<Record<string, unknown>>

export const str = (data: Data, key: string): string => {
  const value = data[key]
  return typeof value === 'string' ? value : ''
}

export const optStr = (data: Data, key: string): string | undefined => {
  const value = data[key]
  return typeof value === 'string' ? value : undefined
}

export const num = (data: Data, key: string): number | undefined => {
  const value = data[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

export const record = (value: unknown): Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : {}

export const records = (value: unknown): Data[] =>
  Array.isArray(value)
    ? value.filter((item): item is Data => typeof item === 'object' && item !== null)
    : []

export const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
