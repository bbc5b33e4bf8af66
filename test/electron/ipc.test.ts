import type { WebContents } from 'electron'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_PAYLOAD_BYTES, methods, notifications } from '../../protocol/contract.js'
import type { Result } from '../../protocol/contract.js'
import { FakeWebContents, fakeHost, frame } from './fakes.js'
import type { FakeFrame, FakeHost } from './fakes.js'

type Handler = (
  event: { sender: unknown; senderFrame: FakeFrame | null },
  ...args: unknown[]
) => Promise<Result<unknown>>

const electron = vi.hoisted(() => ({ handlers: new Map<string, Handler>() }))

vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, handler: Handler) => {
      if (electron.handlers.has(channel)) throw new Error(`second handler for ${channel}`)
      electron.handlers.set(channel, handler)
    },
    removeHandler: (channel: string) => electron.handlers.delete(channel),
  },
}))

const { bindIpc } = await import('../../main/electron/ipc.js')
const { callChannel } = await import('../../protocol/channels.js')

const APP_URL = 'bridle://app/index.html'

let fake: FakeHost
let binding: ReturnType<typeof bindIpc>
let contents: FakeWebContents

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  fake = fakeHost()
  binding = bindIpc(fake.host, APP_URL)
  contents = new FakeWebContents(APP_URL)
  binding.attach(contents as unknown as WebContents)
})

afterEach(() => {
  binding.dispose()
  vi.restoreAllMocks()
})

function call(
  method: string,
  params: unknown,
  sender = contents,
  from: FakeFrame | null = sender.mainFrame,
) {
  const handler = electron.handlers.get(`bridle:call:${method}`)
  if (!handler) throw new Error(`no handler for ${method}`)
  return handler({ sender, senderFrame: from }, params)
}

describe('the IPC binding', () => {
  it('registers exactly one channel per contract method, named after it', () => {
    const expected = Object.keys(methods).map((method) => `bridle:call:${method}`)
    expect([...electron.handlers.keys()].sort()).toEqual(expected.sort())
    expect(callChannel('session/list')).toBe('bridle:call:session/list')
  })

  it('answers the main frame of an attached window showing the app', async () => {
    expect(await call('app/info', {})).toEqual({
      ok: true,
      value: expect.objectContaining({ name: 'Bridle', transport: 'ipc' }),
    })
    expect(fake.calls).toEqual(['app/info'])
  })

  it('refuses invalid params with a typed error before the Host sees them', async () => {
    const result = await call('app/info', { extra: true })
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMS' } })
    expect(fake.calls).toEqual([])
  })

  it('refuses an oversized payload before parsing it', async () => {
    const result = await call('app/info', { big: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) })
    expect(result).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } })
    expect(fake.calls).toEqual([])
  })

  describe('answers FORBIDDEN, without reaching the Host, to a call from', () => {
    const cases: [string, () => Promise<Result<unknown>>][] = [
      [
        'a subframe',
        () =>
          call(
            'app/info',
            {},
            contents,
            frame(APP_URL, { parent: contents.mainFrame, routingId: 2 }),
          ),
      ],
      [
        'a frame that is not the current main frame',
        () => call('app/info', {}, contents, frame(APP_URL, { routingId: 9 })),
      ],
      [
        'a detached frame',
        () => call('app/info', {}, contents, frame(APP_URL, { detached: true })),
      ],
      ['no frame (gone mid-navigation)', () => call('app/info', {}, contents, null)],
      ['a foreign origin', () => call('app/info', {}, withUrl('https://evil.example/'))],
      ['a look-alike host', () => call('app/info', {}, withUrl('bridle://app.evil/index.html'))],
      ['an opaque data: page', () => call('app/info', {}, withUrl('data:text/html,<p>hi</p>'))],
      ['a file: page', () => call('app/info', {}, withUrl('file:///tmp/x.html'))],
      [
        'a window that was never attached',
        () => call('app/info', {}, new FakeWebContents(APP_URL)),
      ],
    ]
    for (const [name, run] of cases) {
      it(name, async () => {
        expect(await run()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } })
        expect(fake.calls).toEqual([])
      })
    }
  })

  it('removes every handler on dispose', () => {
    binding.dispose()
    expect(electron.handlers.size).toBe(0)
    expect(fake.sinks.size).toBe(0)
  })
})

/** The attached window, its main frame now showing `url`. */
function withUrl(url: string): FakeWebContents {
  contents.mainFrame.url = url
  return contents
}

describe('notifications', () => {
  const sent = () => contents.send.mock.calls.map((args) => (args[1] as { topic: string }).topic)

  it('start when the page is ready, with bridge/ready first', () => {
    fake.emit('sessions/changed', { sessionIds: [] })
    expect(sent()).toEqual([])
    contents.emit('dom-ready')
    fake.emit('sessions/changed', { sessionIds: [] })
    expect(contents.send.mock.calls).toEqual([
      ['bridle:notify', { topic: 'bridge/ready', payload: { bootId: 'boot-1' } }],
      ['bridle:notify', { topic: 'sessions/changed', payload: { sessionIds: [] } }],
    ])
  })

  it('forward only topics of the contract', () => {
    contents.emit('dom-ready')
    contents.send.mockClear()
    for (const topic of ['secret/topic', 'session/chunk', '__proto__', 'constructor', '']) {
      fake.emit(topic, { leaked: true })
    }
    expect(contents.send).not.toHaveBeenCalled()
    for (const topic of Object.keys(notifications)) fake.emit(topic, {})
    expect(sent()).toEqual(Object.keys(notifications))
  })

  it('are never sent to a page of another origin', () => {
    contents.emit('dom-ready')
    contents.send.mockClear()
    withUrl('https://evil.example/')
    fake.emit('sessions/changed', { sessionIds: [] })
    expect(contents.send).not.toHaveBeenCalled()
  })

  it('stop when a new document commits or the renderer dies, and resume on the next load', () => {
    contents.emit('dom-ready')
    expect(fake.sinks.size).toBe(1)
    contents.emit('did-navigate')
    expect(fake.sinks.size).toBe(0)
    contents.emit('dom-ready')
    expect(fake.sinks.size).toBe(1)
    contents.emit('render-process-gone', {}, { reason: 'crashed' })
    expect(fake.sinks.size).toBe(0)
    contents.emit('dom-ready')
    contents.emit('dom-ready')
    expect(fake.sinks.size).toBe(1)
  })

  it('end for good when the window is destroyed', async () => {
    contents.emit('dom-ready')
    contents.destroyed = true
    contents.emit('destroyed')
    expect(fake.sinks.size).toBe(0)
    contents.emit('dom-ready')
    expect(fake.sinks.size).toBe(0)
    // And its calls are no longer trusted.
    contents.destroyed = false
    expect(await call('app/info', {})).toMatchObject({ error: { code: 'FORBIDDEN' } })
  })
})
