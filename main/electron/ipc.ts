import { ipcMain } from 'electron'
import type { IpcMainInvokeEvent, WebContents } from 'electron'
import { IPC_CALL_CHANNEL, IPC_NOTIFY_CHANNEL } from '../../preload/contract.js'
import type { Result } from '../../preload/contract.js'
import { checkPayloadSize, dispatchCall } from '../core/host/index.js'
import type { Host } from '../core/host/index.js'

export interface IpcBinding {
  /** Starts forwarding notifications to a window; stops when it is destroyed or navigates. */
  attach(contents: WebContents): void
  dispose(): void
}

const forbidden: Result<never> = {
  ok: false,
  error: { code: 'FORBIDDEN', message: 'calls are accepted only from the Bridle window' },
}

/**
 * Serves the contract over Electron IPC. Every call is checked to come from the main frame of an
 * attached window showing the app's origin, then goes through `dispatchCall` like every other
 * transport.
 */
export function bindIpc(host: Host, isAppUrl: (url: string) => boolean): IpcBinding {
  const attached = new Map<WebContents, () => void>()

  const isTrusted = (event: IpcMainInvokeEvent): boolean => {
    const frame = event.senderFrame
    return (
      frame !== null &&
      attached.has(event.sender) &&
      frame === event.sender.mainFrame &&
      isAppUrl(frame.url)
    )
  }

  ipcMain.handle(IPC_CALL_CHANNEL, async (event, method: unknown, params: unknown) => {
    if (!isTrusted(event)) return forbidden
    const tooLarge = checkPayloadSize(params)
    if (tooLarge) return tooLarge
    return dispatchCall(host, String(method), params, { transport: 'ipc' })
  })

  const detach = (contents: WebContents) => {
    attached.get(contents)?.()
    attached.delete(contents)
  }

  return {
    attach(contents) {
      if (attached.has(contents)) return
      const send = (topic: string, payload: unknown) => {
        if (!contents.isDestroyed()) contents.send(IPC_NOTIFY_CHANNEL, { topic, payload })
      }
      attached.set(contents, host.onNotification(send))
      contents.once('destroyed', () => detach(contents))
      // Each load runs the preload afresh with no listeners; tell it the bridge is ready.
      contents.on('did-finish-load', () => send('bridge/ready', { bootId: host.bootId }))
    },
    dispose() {
      ipcMain.removeHandler(IPC_CALL_CHANNEL)
      for (const contents of [...attached.keys()]) detach(contents)
    },
  }
}
