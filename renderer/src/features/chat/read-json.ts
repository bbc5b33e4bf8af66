/**
 * Readers for the JSON no schema shapes: a tool's arguments (as the model wrote them, parsed) and
 * its result's metadata (each tool's own facts). Events themselves arrive typed (EventDto); these
 * are only for those open values. A field of an unexpected type reads as empty, never as a throw.
 */

export type Data = Readonly<Record<string, unknown>>

export const str = (data: Data, key: string): string => {
  const value = data[key]
  return typeof value === 'string' ? value : ''
}

export const num = (data: Data, key: string): number | undefined => {
  const value = data[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

export const record = (value: unknown): Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : {}
