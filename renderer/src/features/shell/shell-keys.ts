import { useAction } from '../../state/actions'
import { useShellContext } from '../../state/shell-context'
import { SEARCH_INPUT_ID } from '../../state/shortcuts'
import { useIsNarrow } from './use-narrow'

/**
 * What the shell itself does for the named actions: panels, pages, help, search, the composer.
 * The chat's own actions (fork here, regenerate, edit, the model picker) are bound by the chat.
 */
export function useShellActions({
  isHelpOpen,
  setHelpOpen,
}: {
  readonly isHelpOpen: boolean
  readonly setHelpOpen: (isOpen: boolean) => void
}): void {
  const { store } = useShellContext()
  const isNarrow = useIsNarrow()
  const state = () => store.getState()
  useAction('new-session', () => void state().createSession())
  useAction('search', () => {
    const { sidebar } = state()
    if (isNarrow) state().setSidebarSheet(true)
    else if (!sidebar.isOpen) state().toggleSidebar()
    state().closeSettings()
    // The box mounts with the sidebar: wait a frame when it was closed.
    requestAnimationFrame(() => document.getElementById(SEARCH_INPUT_ID)?.focus())
  })
  useAction('focus-composer', () => {
    const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')
    if (!box) return false
    box.focus()
    return true
  })
  useAction('toggle-sidebar', () => {
    if (isNarrow) state().setSidebarSheet(!state().sidebar.isSheetOpen)
    else state().toggleSidebar()
  })
  useAction('toggle-inspector', () => state().toggleDrawer())
  useAction('show-timeline', () => state().showPanel('timeline'))
  useAction('show-checkpoints', () => state().showPanel('checkpoints'))
  useAction('open-settings', () => state().openSettings())
  useAction('help', () => setHelpOpen(true))
  useAction('back', () => {
    // The help dialog closes itself on Escape; nothing else should happen then.
    if (isHelpOpen) return false
    // In a settings field Escape is the field's (a half-typed endpoint is not thrown away).
    if (state().page === 'settings' && !isField(document.activeElement)) {
      state().closeSettings()
      return true
    }
    if (state().page === 'settings' || state().feed?.isRunning !== true) return false
    void state().stop()
    return true
  })
}

function isField(element: Element | null): boolean {
  return (
    element instanceof HTMLInputElement ||
    element instanceof HTMLTextAreaElement ||
    element instanceof HTMLSelectElement
  )
}
