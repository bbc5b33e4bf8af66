import { useEffect, useMemo, useRef, useState } from 'react'
import type { RefObject } from 'react'

/**
 * Modal focus for a Radix dialog that must run with `modal={false}` (issue 17): Radix's modal
 * mode locks scrolling with an injected <style>, which the strict CSP (style-src 'self')
 * refuses; without it Radix still wraps Tab at the dialog's ends (`loop`), but lets focus land
 * on the page behind (a shortcut, the focus guards at the body's edges) and returns it nowhere
 * when no `Dialog.Trigger` opened the dialog. Spread the result on `Dialog.Content`, which also
 * carries `aria-modal="true"`:
 * - while the dialog is open, focus that lands on the page behind goes back to the control of
 *   the dialog that last had it, and does not close the dialog (a click outside still does); layers opened from the dialog (menus, selects, popovers, which
 *   Radix portals beside the page) keep theirs;
 * - on open, focus goes to `initial` (else Radix's first control), and the element that had it
 *   is remembered; on close (Escape, a close button) focus goes back there if it is still on the
 *   page, else stays where the browser puts it.
 */
export function useDialogFocus(initial?: RefObject<HTMLElement | null>) {
  const opener = useRef<HTMLElement | null>(null)
  const [content, setContent] = useState<HTMLElement | null>(null)

  useEffect(() => {
    if (content === null) return
    const active = document.activeElement
    let lastInside = active instanceof HTMLElement && content.contains(active) ? active : null
    const onFocusIn = (event: FocusEvent) => {
      const target = event.target
      if (!(target instanceof HTMLElement)) return
      if (content.contains(target)) {
        lastInside = target
        return
      }
      // Closing (a click outside dismisses a dialog): let focus go where the user put it.
      if (content.dataset['state'] !== 'open' || !isBehind(target)) return
      ;(lastInside?.isConnected === true ? lastInside : content).focus()
    }
    document.addEventListener('focusin', onFocusIn)
    return () => document.removeEventListener('focusin', onFocusIn)
  }, [content])

  return useMemo(
    () => ({
      ref: setContent,
      onOpenAutoFocus(event: Event) {
        const active = document.activeElement
        opener.current = active instanceof HTMLElement ? active : null
        if (initial?.current) {
          event.preventDefault()
          initial.current.focus()
        }
      },
      /** Radix closes a non-modal dialog when focus leaves it; focus taken by the page behind does not count. */
      onFocusOutside(event: Event) {
        if (event.target instanceof HTMLElement && isBehind(event.target)) event.preventDefault()
      },
      onCloseAutoFocus(event: Event) {
        const back = returnTarget(opener.current)
        opener.current = null
        if (back?.isConnected === true) {
          event.preventDefault()
          back.focus()
        }
      },
    }),
    [initial],
  )
}

/** The page under the dialogs (#root) or the body's own edges (Radix's focus guards). */
function isBehind(element: HTMLElement): boolean {
  return (
    element === document.body ||
    element.closest('#root') !== null ||
    element.hasAttribute('data-radix-focus-guard')
  )
}

/**
 * Where focus goes back to: the opener, or for a pointer-only button hidden from assistive
 * technology (a tree row's delete button) the focusable element around it (the row).
 */
function returnTarget(opener: HTMLElement | null): HTMLElement | null {
  const hidden = opener?.closest('[aria-hidden="true"]')
  if (!hidden) return opener
  return hidden.parentElement?.closest<HTMLElement>('[tabindex]') ?? opener
}
