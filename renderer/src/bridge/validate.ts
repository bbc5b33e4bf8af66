import { z } from 'zod'
import { methods, notifications, resultSchema } from '../../../protocol/contract'
import type {
  MethodName,
  NotificationOf,
  Result,
  ResultOf,
  TopicName,
} from '../../../protocol/contract'

/**
 * The renderer trusts nothing it receives: every result and notification is parsed with the
 * contract's schema, and a mismatch becomes an `INVALID_RESULT` error rather than bad state.
 *
 * A long list in a result (a page of thousands of events) is checked a slice at a time, with the
 * page free to draw a frame between slices: checked in one go, a page of 5,000 events held the
 * main thread for tens of ms while the user scrolled. The result is used only once all of it
 * passed, as before.
 */
export async function checkResult<M extends MethodName>(
  method: M,
  raw: unknown,
  sliceMs = SLICE_MS,
): Promise<Result<ResultOf<M>>> {
  const list = longListOf(method, raw)
  const parsed =
    list === undefined
      ? checkerOf(method).schema.safeParse(raw)
      : await checkInSlices(list.shape, raw, list.items, sliceMs)
  if (parsed.success) return parsed.data as Result<ResultOf<M>>
  return {
    ok: false,
    error: { code: 'INVALID_RESULT', message: `${method}: the reply does not match the contract` },
  }
}

export function checkNotification<T extends TopicName>(
  topic: T,
  raw: unknown,
): NotificationOf<T> | undefined {
  const parsed = notifications[topic].safeParse(raw)
  if (parsed.success) return parsed.data as NotificationOf<T>
  console.warn(`[bridle] dropped a ${topic} notification that does not match the contract`)
  return undefined
}

/** Lists at least this long are checked in slices; shorter ones take well under a ms. */
export const SLICED_LIST_MIN = 200

/** How long (ms) one slice may run before the page gets the main thread back (by default). */
const SLICE_MS = 3

type Parsed = { readonly success: true; readonly data: unknown } | { readonly success: false }

/** A result's whole schema, and (for a result with a list) its shape without that list. */
interface Checked {
  readonly schema: z.ZodType
  readonly list: ListShape | undefined
}

interface ListShape {
  readonly key: string
  /** The result with the list taken as it comes (`unknown[]`), the rest checked. */
  readonly envelope: z.ZodType
  readonly element: z.ZodType
}

const checkers = new Map<MethodName, Checked>()

function checkerOf(method: MethodName): Checked {
  const known = checkers.get(method)
  if (known !== undefined) return known
  const value = methods[method].result as z.ZodType
  const checked = { schema: resultSchema(value), list: listShapeOf(value) }
  checkers.set(method, checked)
  return checked
}

/** The first array property of an object result, if it has one. */
function listShapeOf(value: z.ZodType): ListShape | undefined {
  if (!(value instanceof z.ZodObject)) return undefined
  for (const [key, field] of Object.entries(value.shape)) {
    if (field instanceof z.ZodArray) {
      return {
        key,
        envelope: resultSchema(value.extend({ [key]: z.array(z.unknown()) })),
        element: field.element as z.ZodType,
      }
    }
  }
  return undefined
}

/** The result's long list and how to check it, when it has one worth slicing. */
function longListOf(
  method: MethodName,
  raw: unknown,
): { shape: ListShape; items: readonly unknown[] } | undefined {
  const shape = checkerOf(method).list
  if (shape === undefined || typeof raw !== 'object' || raw === null) return undefined
  const value = (raw as { value?: unknown }).value
  if (typeof value !== 'object' || value === null) return undefined
  const items = (value as Record<string, unknown>)[shape.key]
  if (!Array.isArray(items) || items.length < SLICED_LIST_MIN) return undefined
  return { shape, items }
}

/** The result checked as `shape.envelope`, then its list an element at a time, in slices. */
async function checkInSlices(
  { key, envelope, element }: ListShape,
  raw: unknown,
  items: readonly unknown[],
  sliceMs: number,
): Promise<Parsed> {
  const outer = envelope.safeParse(raw)
  if (!outer.success) return { success: false }
  const checked: unknown[] = new Array(items.length)
  // The message was parsed from text in this task already: the first slice starts a new one.
  await nextTask()
  let sliceStart = performance.now()
  for (let i = 0; i < items.length; i++) {
    const parsed = element.safeParse(items[i])
    if (!parsed.success) return { success: false }
    checked[i] = parsed.data
    if (i % 16 === 15 && performance.now() - sliceStart > sliceMs) {
      await nextTask()
      sliceStart = performance.now()
    }
  }
  const data = outer.data as { ok: true; value: Record<string, unknown> }
  return { success: true, data: { ...data, value: { ...data.value, [key]: checked } } }
}

/**
 * A new task, so the browser may draw a frame first: `scheduler.yield()` where there is one
 * (Chromium), else a message to ourselves (no timer's minimum delay).
 */
function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler
  if (scheduler?.yield !== undefined) return scheduler.yield()
  return new Promise((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(undefined)
  })
}
