import type { z } from 'zod'
import { isMethodName, MAX_PAYLOAD_BYTES, methods } from '../../../protocol/contract.js'
import type { BridgeError, FieldError, Result } from '../../../protocol/contract.js'
import type { CallContext, Host } from './host.js'
import { HostError } from './host.js'

const fail = (
  code: BridgeError['code'],
  message: string,
  fields?: readonly FieldError[],
): Result<never> => ({
  ok: false,
  error:
    fields === undefined || fields.length === 0
      ? { code, message }
      : { code, message, fields: [...fields] },
})

/** Each issue as a field error with a dotted path, for errors shown next to the input. */
function fieldsOf(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }))
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ')
}

/**
 * The one place where a call from outside meets the Host: checks the method exists, parses the
 * params (an invalid call never reaches the handler), runs the handler, checks the result, and
 * turns any throw into `{ ok: false, error }`. Never throws.
 */
export async function dispatchCall(
  host: Host,
  method: string,
  params: unknown,
  ctx: CallContext,
): Promise<Result<unknown>> {
  if (!isMethodName(method)) return fail('UNKNOWN_METHOD', `unknown method "${method}"`)
  const spec = methods[method]
  const parsed = spec.params.safeParse(params ?? {})
  if (!parsed.success) {
    return fail(
      'INVALID_PARAMS',
      `invalid params for ${method}: ${describeIssues(parsed.error)}`,
      fieldsOf(parsed.error),
    )
  }
  let value: unknown
  try {
    const handler = host.handlers[method] as (p: unknown, c: CallContext) => unknown
    value = await handler(parsed.data, ctx)
  } catch (error) {
    if (error instanceof HostError) return fail(error.code, error.message, error.fields)
    const message = error instanceof Error ? error.message : String(error)
    return fail('INTERNAL', `${method} failed: ${message}`)
  }
  const checked = spec.result.safeParse(value)
  if (!checked.success) {
    return fail(
      'INVALID_RESULT',
      `${method} returned an invalid result: ${describeIssues(checked.error)}`,
    )
  }
  return { ok: true, value: checked.data }
}

/** Size of a payload as the wire would carry it; `undefined` when it cannot be serialised. */
export function payloadBytes(payload: unknown): number | undefined {
  try {
    // JSON.stringify answers undefined for undefined, a function or a symbol.
    const text = JSON.stringify(payload) as string | undefined
    return text === undefined ? 0 : Buffer.byteLength(text)
  } catch {
    // A cycle or a BigInt: the caller refuses it as invalid, which is the honest answer.
    return undefined
  }
}

export function checkPayloadSize(payload: unknown): Result<never> | undefined {
  const bytes = payloadBytes(payload)
  if (bytes === undefined) return fail('INVALID_PARAMS', 'the call cannot be serialised as JSON')
  if (bytes > MAX_PAYLOAD_BYTES) {
    return fail(
      'PAYLOAD_TOO_LARGE',
      `the call is ${bytes} bytes; the bridge accepts ${MAX_PAYLOAD_BYTES}`,
    )
  }
  return undefined
}
