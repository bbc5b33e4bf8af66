/**
 * Stand-ins for the Electron objects the shell touches, enough to drive its event handlers in
 * plain Node (there is no Electron binary in CI). Each records what the code under test did.
 */
import { EventEmitter } from 'node:events'
import { vi } from 'vitest'
import type { Host, HostHandlers, NotificationSink } from '../../main/core/host/index.js'

/** The details object Electron passes to will-navigate and friends. */
export interface NavigationDetails {
  readonly url: string
  readonly isMainFrame: boolean
  readonly preventDefault: ReturnType<typeof vi.fn>
}

export function navigation(url: string, isMainFrame = true): NavigationDetails {
  return { url, isMainFrame, preventDefault: vi.fn() }
}

export interface FakeFrame {
  url: string
  detached: boolean
  parent: FakeFrame | null
  processId: number
  routingId: number
}

export function frame(url: string, overrides: Partial<FakeFrame> = {}): FakeFrame {
  return { url, detached: false, parent: null, processId: 1, routingId: 1, ...overrides }
}

type OpenHandler = (details: { url: string }) => { action: string }

export class FakeWebContents extends EventEmitter {
  mainFrame: FakeFrame
  readonly send = vi.fn()
  destroyed = false
  openHandler: OpenHandler | undefined

  constructor(url: string) {
    super()
    this.mainFrame = frame(url)
  }

  getURL(): string {
    return this.mainFrame.url
  }

  isDestroyed(): boolean {
    return this.destroyed
  }

  setWindowOpenHandler(handler: OpenHandler): void {
    this.openHandler = handler
  }
}

/** The app/info value a real Host answers; any other method fails loudly if it is reached. */
export const APP_INFO = {
  name: 'Bridle',
  version: '1.0.0',
  dataDir: '/data',
  databasePath: '/data/bridle.db',
  platform: 'linux',
  arch: 'x64',
  versions: {},
  transport: 'ipc',
} as const

export interface FakeHost {
  readonly host: Host
  /** Methods whose handler ran, in order. */
  readonly calls: string[]
  readonly sinks: Set<NotificationSink>
  /** Sends a notification as the Host would, any topic (the Host's own typing aside). */
  emit(topic: string, payload: unknown): void
}

export function fakeHost(): FakeHost {
  const calls: string[] = []
  const sinks = new Set<NotificationSink>()
  const handlers = new Proxy(
    {},
    {
      get: (_target, method) => (_params: unknown, ctx: { transport: string }) => {
        calls.push(String(method))
        if (method === 'app/info') return { ...APP_INFO, transport: ctx.transport }
        throw new Error(`${String(method)} is not faked`)
      },
    },
  ) as HostHandlers
  return {
    host: {
      handlers,
      bootId: 'boot-1',
      onNotification(sink) {
        sinks.add(sink)
        return () => void sinks.delete(sink)
      },
      close: () => Promise.resolve(),
    },
    calls,
    sinks,
    emit(topic, payload) {
      for (const sink of [...sinks]) (sink as (t: string, p: unknown) => void)(topic, payload)
    },
  }
}
