import type { BridleApi } from '../../../protocol/contract'
import { checkNotification, checkResult } from './validate'

/** The Electron transport: `window.bridle` from the preload, wrapped with result validation. */
export function createIpcClient(raw: BridleApi): BridleApi {
  return {
    async call(method, params) {
      return checkResult(method, await raw.call(method, params))
    },
    subscribe(topic, listener) {
      return raw.subscribe(topic, (payload) => {
        const checked = checkNotification(topic, payload)
        if (checked !== undefined) listener(checked)
      })
    },
  }
}
