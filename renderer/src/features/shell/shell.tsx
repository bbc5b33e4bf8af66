import { useEffect, useState } from 'react'
import type { Bridge } from '../../bridge'
import { applyTheme } from '../../state/theme'
import { ShellContext } from '../../state/shell-context'
import { createShellStore } from '../../state/shell-store'
import { useShortcuts } from '../../state/shortcuts'
import { HelpOverlay } from '../help'
import { ShellLayout } from './layout'

/**
 * Owns the store for the bridge's lifetime and connects it: notifications, the first reads, the
 * theme. The store is created once per bridge (React state), while subscribing is an effect so
 * it is undone and redone cleanly.
 */
export function Shell({ bridge }: { readonly bridge: Bridge }) {
  const [shell] = useState(() => createShellStore(bridge.api))
  useEffect(() => applyTheme(), [])
  useEffect(() => {
    const disconnect = shell.connect()
    void shell.store.getState().start()
    return disconnect
  }, [shell])
  return (
    <ShellContext value={{ store: shell.store, api: bridge.api, kind: bridge.kind }}>
      <ShellBody />
    </ShellContext>
  )
}

function ShellBody() {
  const [isHelpOpen, setHelpOpen] = useState(false)
  useShortcuts({ isHelpOpen, setHelpOpen })
  return (
    <>
      <ShellLayout onHelp={() => setHelpOpen(true)} />
      {isHelpOpen && <HelpOverlay onClose={() => setHelpOpen(false)} />}
    </>
  )
}
