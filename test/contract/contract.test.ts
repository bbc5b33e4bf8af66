import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { methods, notifications, resultSchema } from '../../preload/contract.js'
import type {
  MethodName,
  ParamsOf,
  ResultOf,
  TopicName,
  NotificationOf,
} from '../../preload/contract.js'
import { boot, dispatchCall, HostError } from '../../main/core/host/index.js'
import type { Host } from '../../main/core/host/index.js'
import type { Result } from '../../preload/contract.js'

const errorOf = (result: Result<unknown>) => (result.ok ? undefined : result.error)

/** One valid sample per method: adding a method to the contract without a sample fails to compile. */
const samples: { [M in MethodName]: { params: ParamsOf<M>; result: ResultOf<M> } } = {
  'app/info': {
    params: {},
    result: {
      name: 'Bridle',
      version: '1.2.3',
      dataDir: '/home/someone/.bridle',
      databasePath: '/home/someone/.bridle/bridle.db',
      platform: 'linux',
      arch: 'x64',
      versions: { node: '24.22.3' },
      transport: 'ipc',
    },
  },
}

const notificationSamples: { [T in TopicName]: NotificationOf<T> } = {
  'bridge/ready': { bootId: 'b1' },
}

const methodNames = Object.keys(methods) as MethodName[]

describe('the contract', () => {
  it.each(methodNames)('%s: params and result round-trip through zod and JSON', (method) => {
    const { params, result } = samples[method]
    const spec = methods[method]
    expect(spec.params.parse(JSON.parse(JSON.stringify(params)))).toEqual(params)
    expect(spec.result.parse(JSON.parse(JSON.stringify(result)))).toEqual(result)
    const wrapped = resultSchema(spec.result).parse({ ok: true, value: result })
    expect(wrapped).toEqual({ ok: true, value: result })
  })

  it.each(Object.keys(notifications) as TopicName[])('%s: notification round-trips', (topic) => {
    const sample = notificationSamples[topic]
    expect(notifications[topic].parse(JSON.parse(JSON.stringify(sample)))).toEqual(sample)
  })

  it('error results carry a known code', () => {
    const schema = resultSchema(methods['app/info'].result)
    expect(schema.safeParse({ ok: false, error: { code: 'INTERNAL', message: 'x' } }).success).toBe(
      true,
    )
    expect(schema.safeParse({ ok: false, error: { code: 'MADE_UP', message: 'x' } }).success).toBe(
      false,
    )
  })
})

describe('dispatchCall', () => {
  let home: string
  let host: Host

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'bridle-contract-'))
    host = await boot({ home, version: '9.9.9', versions: { node: process.versions.node } })
  })

  afterEach(async () => {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('serves app/info with the data folder and the caller transport', async () => {
    const result = await dispatchCall(host, 'app/info', {}, { transport: 'websocket' })
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({ version: '9.9.9', dataDir: home, transport: 'websocket' }),
    })
  })

  it('rejects invalid params with a typed error and never calls the handler', async () => {
    const spy = vi.spyOn(host.handlers, 'app/info')
    const result = await dispatchCall(host, 'app/info', { extra: true }, { transport: 'ipc' })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_PARAMS')
      expect(result.error.message).toContain('extra')
    }
    const notAnObject = await dispatchCall(host, 'app/info', 'hello', { transport: 'ipc' })
    expect(errorOf(notAnObject)?.code).toBe('INVALID_PARAMS')
    expect(spy).not.toHaveBeenCalled()
  })

  it('rejects an unknown method, including inherited property names', async () => {
    for (const method of ['app/nope', 'toString', '__proto__', 'constructor']) {
      const result = await dispatchCall(host, method, {}, { transport: 'ipc' })
      expect(errorOf(result)?.code).toBe('UNKNOWN_METHOD')
    }
  })

  it('turns a HostError into its code and any other throw into INTERNAL', async () => {
    vi.spyOn(host.handlers, 'app/info').mockImplementationOnce(() => {
      throw new HostError('FORBIDDEN', 'not you')
    })
    expect(await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })).toEqual({
      ok: false,
      error: { code: 'FORBIDDEN', message: 'not you' },
    })
    vi.spyOn(host.handlers, 'app/info').mockRejectedValueOnce(new Error('disk on fire'))
    const failed = await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })
    expect(errorOf(failed)).toEqual({
      code: 'INTERNAL',
      message: 'app/info failed: disk on fire',
    })
  })

  it('refuses a result that breaks the contract instead of passing it on', async () => {
    vi.spyOn(host.handlers, 'app/info').mockResolvedValueOnce({ name: 'Bridle' } as never)
    const result = await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })
    expect(errorOf(result)?.code).toBe('INVALID_RESULT')
  })
})
