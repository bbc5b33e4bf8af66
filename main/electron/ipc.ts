import { ipcMain } from 'electron'
import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { isTopicName, methods } from '../../protocol/contract.js'
import type { MethodName, Result } from '../../protocol/contract.js'
import { checkPayloadSize, dispatchCall } from '../core/host/index.js'
import type { Host } from '../core/host/index.js'
import { callChannel, NOTIFY_CHANNEL } from '../../protocol/channels.js'
import { isAppUrl } from './urls.js'

export interface IpcBinding {
  /**
   * Lets a window call the Host and hear its notifications. Its subscription starts when each
   * page load is ready and ends when the page goes (navigation, crash) or the window is destroyed.
   */
  attach(contents: WebContents): void
  /** Removes every handler and subscription. */
  dispose(): void
}

const forbidden: Result<never> = {
  ok: false,
  error: { code: 'FORBIDDEN', message: 'calls are accepted only from the Bridle window' },
}

/** The contract's method names, in its order. */
function methodNames(): MethodName[] {
  return Object.keys(methods).filter((name): name is MethodName => Object.hasOwn(methods, name))
}

/**
 * Serves the contract over Electron IPC: one `ipcMain.handle` per method. A call is answered only
 * when it comes from the main frame (not detached, not a subframe) of an attached window showing
 * the app's origin; then its size is checked and it goes through `dispatchCall` like every other
 * transport, which parses the params (an invalid call never reaches the Host).
 */
export function bindIpc(host: Host, appUrl: string): IpcBinding {
  const attached = new Map<WebContents, () => void>()

  const isTrusted = (event: IpcMainInvokeEvent): boolean => {
    const frame = event.senderFrame
    if (frame === null || frame.detached || frame.parent !== null) return false
    if (!attached.has(event.sender)) return false
    const main = event.sender.mainFrame
    // The same document as the window's current main frame, not a stale one mid-navigation.
    if (frame.processId !== main.processId || frame.routingId !== main.routingId) return false
    return isAppUrl(frame.url, appUrl)
  }

  const call = (method: MethodName) => async (event: IpcMainInvokeEvent, params: unknown) => {
    if (!isTrusted(event)) {
      console.warn(`[bridle] refused ${method} from ${event.senderFrame?.url ?? 'a gone frame'}`)
      return forbidden
    }
    const tooLarge = checkPayloadSize(params)
    if (tooLarge) return tooLarge
    return dispatchCall(host, method, params, { transport: 'ipc' })
  }

  const channels = methodNames().map((method) => {
    const channel = callChannel(method)
    ipcMain.handle(channel, call(method))
    return channel
  })

  const detach = (contents: WebContents) => {
    attached.get(contents)?.()
    attached.delete(contents)
  }

  return {
    attach(contents) {
      if (attached.has(contents)) return
      attached.set(contents, forwardNotifications(host, contents, appUrl))
      contents.once('destroyed', () => detach(contents))
    },
    dispose() {
      for (const channel of channels) ipcMain.removeHandler(channel)
      for (const contents of [...attached.keys()]) detach(contents)
    },
  }
}

/**
 * Forwards the Host's notifications to one window: only topics of the contract, only while the
 * window shows a page of the app. Each page load gets a fresh preload with no listeners, so the
 * subscription is renewed at `dom-ready` (the preload has run by then) with a `bridge/ready`, and
 * dropped when a new document commits (`did-navigate`) or the renderer dies. `did-navigate`
 * rather than `did-start-navigation`: a navigation that `will-navigate` cancels starts but never
 * commits, and the page that stays must keep hearing. Returns the disposer.
 */
function forwardNotifications(host: Host, contents: WebContents, appUrl: string): () => void {
  let stop: (() => void) | undefined
  const send = (topic: string, payload: unknown) => {
    if (!isTopicName(topic)) return
    if (contents.isDestroyed() || !isAppUrl(contents.getURL(), appUrl)) return
    contents.send(NOTIFY_CHANNEL, { topic, payload })
  }
  const unsubscribe = () => {
    stop?.()
    stop = undefined
  }
  const subscribe = () => {
    unsubscribe()
    stop = host.onNotification(send)
    send('bridge/ready', { bootId: host.bootId })
  }
  contents.on('dom-ready', subscribe)
  contents.on('did-navigate', unsubscribe)
  contents.on('render-process-gone', unsubscribe)
  return () => {
    unsubscribe()
    contents.off('dom-ready', subscribe)
    contents.off('did-navigate', unsubscribe)
    contents.off('render-process-gone', unsubscribe)
  }
}
