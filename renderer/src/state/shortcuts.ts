/**
 * The app's keyboard shortcuts, in one table: the help overlay lists exactly what is bound here.
 * Send (Enter) and newline (Shift+Enter) belong to the composer's textbox and are listed only.
 */
import { useEffect } from 'react'
import { useShellContext } from './shell-context'
import type { ShellState } from './shell-store'

const isMac = /Mac|iPhone|iPad/.test(globalThis.navigator.userAgent)

/** "Ctrl+K" or "⌘K", as this platform says it. */
export function shortcutLabel(key: string): string {
  return isMac ? `⌘${key}` : `Ctrl+${key}`
}

export interface Shortcut {
  readonly keys: string
  readonly what: string
}

export const SHORTCUTS: readonly Shortcut[] = [
  // A browser keeps Ctrl+N (a new window) for itself, so `bridle serve` users get Alt+N.
  { keys: `${shortcutLabel('N')} or Alt+N`, what: 'New session' },
  { keys: 'Enter', what: 'Send the message' },
  { keys: 'Shift+Enter', what: 'New line in the message' },
  { keys: 'Escape', what: 'Stop the running turn' },
  { keys: shortcutLabel('K'), what: 'Search the sessions' },
  { keys: shortcutLabel('I'), what: 'Show or hide the inspector' },
  { keys: '? or F1', what: 'This help' },
]

/** Keys of the session tree, bound by the tree itself (sessions/session-tree.tsx). */
export const TREE_SHORTCUTS: readonly Shortcut[] = [
  { keys: '↑ ↓ Home End', what: 'Session tree: move between sessions' },
  { keys: '→ ←', what: 'Session tree: show or hide forks, go into them or back to the parent' },
  { keys: 'F2 / Delete', what: 'Session tree: rename / move to the trash' },
]

export const SEARCH_INPUT_ID = 'session-search'

interface ShortcutOptions {
  readonly isHelpOpen: boolean
  readonly setHelpOpen: (isOpen: boolean) => void
}

/** Binds the shortcuts on the window for as long as the shell is mounted. */
export function useShortcuts({ isHelpOpen, setHelpOpen }: ShortcutOptions): void {
  const { store } = useShellContext()
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = actionFor(event, isHelpOpen)
      if (!action) return
      // Escape means "stop" only while a turn runs; otherwise it stays the page's (menus, edits).
      if (action === 'stop' && store.getState().feed?.isRunning !== true) return
      event.preventDefault()
      run(action, store.getState(), setHelpOpen)
    }
    globalThis.addEventListener('keydown', onKey)
    return () => globalThis.removeEventListener('keydown', onKey)
  }, [store, isHelpOpen, setHelpOpen])
}

type Action = 'new' | 'search' | 'inspector' | 'help' | 'close-help' | 'stop'

function actionFor(event: KeyboardEvent, isHelpOpen: boolean): Action | undefined {
  const mod = isMac ? event.metaKey : event.ctrlKey
  const key = event.key.toLowerCase()
  if (mod && !event.altKey && !event.shiftKey) {
    if (key === 'n') return 'new'
    if (key === 'k') return 'search'
    if (key === 'i') return 'inspector'
  }
  if (event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && key === 'n') {
    return 'new'
  }
  if (event.key === 'F1') return 'help'
  if (event.key === 'Escape') return isHelpOpen ? 'close-help' : 'stop'
  if (event.key === '?' && !isTyping(event.target)) return 'help'
  return undefined
}

function run(action: Action, state: ShellState, setHelpOpen: (isOpen: boolean) => void): void {
  switch (action) {
    case 'new':
      void state.createSession()
      return
    case 'search':
      document.getElementById(SEARCH_INPUT_ID)?.focus()
      return
    case 'inspector':
      state.toggleDrawer()
      return
    case 'help':
      setHelpOpen(true)
      return
    case 'close-help':
      setHelpOpen(false)
      return
    case 'stop':
      void state.stop()
      return
  }
}

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  )
}
