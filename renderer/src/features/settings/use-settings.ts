/**
 * The settings as the main process has them: read once with `settings/get`, then kept current by
 * `settings/changed` (sent after every change, ours or another window's). Saving applies an edit
 * to the latest config read, so a form never sends back defaults or values it did not read.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { BridgeError, BridleApi, SettingsView } from '../../../../protocol/contract'
import type { Config } from '../../../../protocol/settings'

export type SettingsState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly view: SettingsView }
  | { readonly status: 'failed'; readonly error: BridgeError }

export type SaveOutcome =
  | { readonly ok: true; readonly view: SettingsView }
  | { readonly ok: false; readonly error: BridgeError }

/** Applies one edit to the config as last read and sends the whole result. */
export type SaveSettings = (edit: (config: Config) => Config) => Promise<SaveOutcome>

export interface SettingsHandle {
  readonly state: SettingsState
  readonly save: SaveSettings
  readonly reload: () => void
}

const NOT_LOADED: BridgeError = {
  code: 'CONFLICT',
  message: 'the settings are not loaded yet: wait a moment and try again',
}

export function useSettings(api: BridleApi): SettingsHandle {
  const [state, setState] = useState<SettingsState>({ status: 'loading' })
  const [generation, setGeneration] = useState(0)
  // The edit must start from the newest config even when a notification arrived since render.
  const latest = useRef<SettingsView | undefined>(undefined)

  const show = useCallback((view: SettingsView) => {
    latest.current = view
    setState({ status: 'ready', view })
  }, [])

  useEffect(() => {
    let isCurrent = true
    const unsubscribe = api.subscribe('settings/changed', (view) => {
      if (isCurrent) show(view)
    })
    void api.call('settings/get', {}).then((result) => {
      if (!isCurrent) return
      if (result.ok) show(result.value)
      else setState({ status: 'failed', error: result.error })
    })
    return () => {
      isCurrent = false
      unsubscribe()
    }
  }, [api, show, generation])

  const save = useCallback<SaveSettings>(
    async (edit) => {
      const view = latest.current
      if (view === undefined) return { ok: false, error: NOT_LOADED }
      const result = await api.call('settings/update', { config: edit(view.config) })
      if (!result.ok) return { ok: false, error: result.error }
      show(result.value)
      return { ok: true, view: result.value }
    },
    [api, show],
  )

  const reload = useCallback(() => {
    setState({ status: 'loading' })
    setGeneration((n) => n + 1)
  }, [])

  return { state, save, reload }
}
