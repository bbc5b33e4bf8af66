import { useEffect, useRef } from 'react'
import { useShellContext } from '../../state/shell-context'
import { SHORTCUTS, TREE_SHORTCUTS } from '../../state/shortcuts'
import { AppInfoPanel } from '../about'

/**
 * The keyboard shortcuts and what this Bridle is (version, data folder, transport). A modal
 * dialog: focus moves into it, Escape or the button closes it (the shell binds Escape).
 */
export function HelpOverlay({ onClose }: { readonly onClose: () => void }) {
  const { api } = useShellContext()
  const closeRef = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    const previous = document.activeElement
    closeRef.current?.focus()
    return () => {
      if (previous instanceof HTMLElement) previous.focus()
    }
  }, [])
  return (
    <div
      className="overlay"
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose()
      }}
    >
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title">
        <div className="dialog-head">
          <h2 id="help-title">Help</h2>
          <button ref={closeRef} type="button" className="ghost" onClick={onClose}>
            Close
          </button>
        </div>
        <h3>Keyboard shortcuts</h3>
        <table className="shortcuts">
          <tbody>
            {[...SHORTCUTS, ...TREE_SHORTCUTS].map((shortcut) => (
              <tr key={shortcut.keys}>
                <td>
                  <kbd>{shortcut.keys}</kbd>
                </td>
                <td>{shortcut.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <AppInfoPanel api={api} />
      </div>
    </div>
  )
}
