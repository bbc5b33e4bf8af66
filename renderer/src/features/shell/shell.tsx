import * as Tooltip from '@radix-ui/react-tooltip'
import { useEffect, useState } from 'react'
import type { Bridge } from '../../bridge'
import { ActionContext, createActionRegistry, useActionKeys } from '../../state/actions'
import { applyTheme } from '../../state/theme'
import { ShellContext } from '../../state/shell-context'
import { createShellStore } from '../../state/shell-store'
import { HelpOverlay } from '../help'
import { RestoreDialog } from '../restore'
import { ExportDialog, ImportDialog } from '../sessions'
import { ShellLayout } from './layout'
import { useShellActions } from './shell-keys'

/**
 * Owns the store and the action registry for the bridge's lifetime and connects them:
 * notifications, the first reads, the theme, the keys. The store is created once per bridge
 * (React state), while subscribing is an effect so it is undone and redone cleanly.
 */
export function Shell({ bridge }: { readonly bridge: Bridge }) {
  const [shell] = useState(() => createShellStore(bridge.api))
  const [registry] = useState(createActionRegistry)
  useEffect(() => applyTheme(), [])
  useEffect(() => {
    const disconnect = shell.connect()
    void shell.store.getState().start()
    return disconnect
  }, [shell])
  useActionKeys(registry)
  return (
    <ShellContext value={{ store: shell.store, api: bridge.api, kind: bridge.kind }}>
      <ActionContext value={registry}>
        {/* The one tooltip provider: every tooltip of the app shares its delay. */}
        <Tooltip.Provider delayDuration={500}>
          <ShellBody />
        </Tooltip.Provider>
      </ActionContext>
    </ShellContext>
  )
}

function ShellBody() {
  const [isHelpOpen, setHelpOpen] = useState(false)
  useShellActions({ isHelpOpen, setHelpOpen })
  return (
    <>
      <ShellLayout onHelp={() => setHelpOpen(true)} />
      <HelpOverlay isOpen={isHelpOpen} onOpenChange={setHelpOpen} />
      <ImportDialog />
      <RestoreDialog />
      <ExportDialog />
    </>
  )
}
