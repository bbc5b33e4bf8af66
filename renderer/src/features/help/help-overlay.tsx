import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useShellContext } from '../../state/shell-context'
import { ACTION_NAMES, ACTIONS, LISTED_KEYS, keysLabel } from '../../state/shortcuts'
import { AppInfoPanel } from '../about'
import { useDialogFocus } from '../../state/use-dialog-focus'

/** Every key the help lists: the registry's actions, then the keys widgets bind themselves. */
export function helpRows(): readonly { readonly keys: string; readonly what: string }[] {
  return [
    ...ACTION_NAMES.map((name) => ({ keys: keysLabel(name), what: ACTIONS[name].what })),
    ...LISTED_KEYS,
  ]
}

/**
 * The keyboard shortcuts and what this Bridle is (version, data folder, transport). A
 * dialog: focus moves into it and back out, Escape or the button closes it.
 */
export function HelpOverlay({
  isOpen,
  onOpenChange,
}: {
  readonly isOpen: boolean
  readonly onOpenChange: (isOpen: boolean) => void
}) {
  const { api } = useShellContext()
  const focus = useDialogFocus()
  return (
    // Not Radix-modal: its scroll lock injects a <style>, which the strict CSP refuses;
    // useDialogFocus keeps focus inside and returns it. Escape or a click outside closes it.
    <Dialog.Root open={isOpen} modal={false} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        {/* The dimmed backdrop (Radix draws its Overlay only for modal dialogs). */}
        <div className="overlay" aria-hidden="true" />
        <Dialog.Content
          {...focus}
          aria-modal="true"
          className="dialog"
          aria-describedby={undefined}
        >
          <div className="dialog-head">
            <Dialog.Title>Help</Dialog.Title>
            <Dialog.Close asChild>
              <button type="button" className="ghost">
                <X size={16} aria-hidden="true" />
                Close
              </button>
            </Dialog.Close>
          </div>
          <h3>Keyboard shortcuts</h3>
          <table className="shortcuts" aria-label="Keyboard shortcuts">
            <tbody>
              {helpRows().map((row) => (
                <tr key={row.keys}>
                  <td>
                    <kbd>{row.keys}</kbd>
                  </td>
                  <td>{row.what}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <AppInfoPanel api={api} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
