import { describe, expect, it, vi } from 'vitest'
import { methods } from '../../protocol/contract.js'
import type { BridleApi } from '../../protocol/contract.js'

type NotifyListener = (event: unknown, message: unknown) => void

const electron = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoke: vi.fn((_channel: string, _params: unknown) => Promise.resolve({ ok: true, value: 1 })),
  onChannels: new Map<string, NotifyListener>(),
}))

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api),
  },
  ipcRenderer: {
    invoke: electron.invoke,
    on: (channel: string, listener: NotifyListener) => electron.onChannels.set(channel, listener),
  },
}))

await import('../../preload/index.js')

const api = electron.exposed.get('bridle') as BridleApi
/** The API as the page may really use it: any value for any argument. */
const loose = api as unknown as {
  call(method: unknown, params: unknown): Promise<unknown>
  subscribe(topic: unknown, listener: unknown): () => void
}

function notify(message: unknown) {
  electron.onChannels.get('bridle:notify')?.({}, message)
}

describe('the preload', () => {
  it('exposes exactly window.bridle = { call, subscribe }, functions only', () => {
    expect([...electron.exposed.keys()]).toEqual(['bridle'])
    expect(Object.keys(api).sort()).toEqual(['call', 'subscribe'])
    expect(typeof api.call).toBe('function')
    expect(typeof api.subscribe).toBe('function')
    expect([...electron.onChannels.keys()]).toEqual(['bridle:notify'])
  })

  it('calls each contract method on its own channel', async () => {
    for (const method of Object.keys(methods)) {
      electron.invoke.mockClear()
      await loose.call(method, { probe: method })
      expect(electron.invoke).toHaveBeenCalledWith(`bridle:call:${method}`, { probe: method })
    }
  })

  it('invokes nothing for a name outside the contract', async () => {
    electron.invoke.mockClear()
    for (const method of ['nope', '__proto__', 'constructor', 'toString', 42, null, undefined]) {
      expect(await loose.call(method, {})).toMatchObject({
        ok: false,
        error: { code: 'UNKNOWN_METHOD' },
      })
    }
    expect(electron.invoke).not.toHaveBeenCalled()
  })

  it('subscribes to contract topics only and delivers only those', () => {
    expect(() => loose.subscribe('secret/topic', () => undefined)).toThrow('unknown topic')
    expect(() => loose.subscribe('__proto__', () => undefined)).toThrow('unknown topic')
    expect(() => loose.subscribe('bridge/ready', 'not a function')).toThrow('listener')

    const heard: unknown[] = []
    const stop = api.subscribe('bridge/ready', (payload) => heard.push(payload))
    notify({ topic: 'bridge/ready', payload: { bootId: 'b' } })
    notify({ topic: 'secret/topic', payload: { bootId: 'x' } })
    notify('garbage')
    notify(null)
    expect(heard).toEqual([{ bootId: 'b' }])
    stop()
    notify({ topic: 'bridge/ready', payload: { bootId: 'c' } })
    expect(heard).toHaveLength(1)
  })

  it('keeps delivering when one listener throws', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const heard: unknown[] = []
    api.subscribe('sessions/changed', () => {
      throw new Error('listener bug')
    })
    api.subscribe('sessions/changed', (payload) => heard.push(payload))
    notify({ topic: 'sessions/changed', payload: { sessionIds: [] } })
    expect(heard).toEqual([{ sessionIds: [] }])
  })
})
