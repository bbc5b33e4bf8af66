/**
 * Hands the shell's store to the components below the App without prop drilling. The shell
 * creates the store; everything else reads it through `useShell(selector)`.
 */
import { createContext, useContext } from 'react'
import { useStore } from 'zustand'
import type { BridleApi } from '../../../protocol/contract'
import type { BridgeKind } from '../bridge'
import type { ShellState, ShellStore } from './shell-store'

export interface ShellContextValue {
  readonly store: ShellStore
  readonly api: BridleApi
  readonly kind: BridgeKind
}

export const ShellContext = createContext<ShellContextValue | undefined>(undefined)

export function useShellContext(): ShellContextValue {
  const value = useContext(ShellContext)
  if (!value) throw new Error('useShell is used outside the shell (no ShellContext above it)')
  return value
}

/** Reads a slice of the shell's state; re-renders only when that slice changes. */
export function useShell<T>(selector: (state: ShellState) => T): T {
  return useStore(useShellContext().store, selector)
}
