import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import type { BridgeError } from '../../../../protocol/contract'
import { sessionTitle } from '../../state/session-tree'
import { useShell, useShellContext } from '../../state/shell-context'
import type { ShellState } from '../../state/shell-store'
import { useDialogFocus } from '../../state/use-dialog-focus'

type Format = 'html' | 'md'

const FORMATS: readonly {
  readonly format: Format
  readonly label: string
  readonly hint: string
}[] = [
  { format: 'html', label: 'HTML page', hint: 'One self-contained page, opens in any browser.' },
  { format: 'md', label: 'Markdown', hint: 'For GitHub, notes, or another tool.' },
]

const MIME: Readonly<Record<Format, string>> = {
  html: 'text/html;charset=utf-8',
  md: 'text/markdown;charset=utf-8',
}

/**
 * How long a download's object URL is kept. Chromium (and so Electron) has read the blob by the
 * time the click returns, but some browsers start reading it later; a minute is ample for a
 * text file, and the URL holds nothing but that text meanwhile.
 */
const REVOKE_AFTER_MS = 60_000

/**
 * "Export…": the session the shell store names (`exportSessionId`, set from a tree row's menu or
 * the chat header) as a transcript for people, saved as a download (`session/export`). Electron
 * turns the download into a save dialog; a browser saves it to its downloads folder. A failure
 * is said in the dialog, which stays open with the choice made; a success closes it.
 */
export function ExportDialog() {
  const sessionId = useShell((s) => s.exportSessionId)
  const setExportSession = useShell((s) => s.setExportSession)
  const onClose = () => setExportSession(undefined)
  return (
    // Not Radix-modal: its scroll lock injects a <style>, which the strict CSP refuses;
    // useDialogFocus keeps focus inside and returns it to the opener.
    <Dialog.Root
      open={sessionId !== undefined}
      modal={false}
      onOpenChange={(open) => !open && onClose()}
    >
      <Dialog.Portal>
        <div className="overlay" aria-hidden="true" />
        {sessionId !== undefined && (
          <ExportContent key={sessionId} sessionId={sessionId} onClose={onClose} />
        )}
      </Dialog.Portal>
    </Dialog.Root>
  )
}

function ExportContent({
  sessionId,
  onClose,
}: {
  readonly sessionId: string
  readonly onClose: () => void
}) {
  const { api, store } = useShellContext()
  // Read when the dialog opens: the session may leave the list (trashed) while it is open.
  const [title] = useState(() => titleOf(store.getState(), sessionId))
  // The focus starts on the chosen format: the arrows change it, Tab then reaches Save.
  const chosenRadio = useRef<HTMLInputElement>(null)
  const focus = useDialogFocus(chosenRadio)
  const ids = useId()
  const [format, setFormat] = useState<Format>('html')
  const [isExporting, setExporting] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  // Closed while the export ran: the user cancelled, so no file is saved.
  const isShown = useRef(true)
  useEffect(() => {
    isShown.current = true
    return () => {
      isShown.current = false
    }
  }, [])

  const runExport = async () => {
    setExporting(true)
    setError(undefined)
    const result = await api.call('session/export', { sessionId, format })
    if (!isShown.current) return
    setExporting(false)
    if (!result.ok) {
      setError(failureWords(result.error))
      return
    }
    saveAsDownload(result.value.text, result.value.fileName, MIME[format])
    onClose()
  }

  return (
    <Dialog.Content {...focus} aria-modal="true" className="dialog export-dialog">
      <div className="dialog-head">
        <Dialog.Title>Export transcript</Dialog.Title>
        <Dialog.Close asChild>
          <button type="button" className="ghost">
            <X size={16} aria-hidden="true" />
            Close
          </button>
        </Dialog.Close>
      </div>
      <Dialog.Description className="export-intro">
        <strong className="session-dialog-name">{title}</strong>{' '}
        <span className="muted">as a file to read or share.</span>
      </Dialog.Description>

      <fieldset className="import-section">
        <legend>Format</legend>
        {FORMATS.map((choice) => (
          <label key={choice.format} className="export-format">
            <input
              ref={format === choice.format ? chosenRadio : undefined}
              type="radio"
              name={`${ids}-format`}
              checked={format === choice.format}
              onChange={() => setFormat(choice.format)}
              aria-describedby={`${ids}-${choice.format}`}
            />
            <span className="import-item-text">
              <span>{choice.label}</span>
              <span id={`${ids}-${choice.format}`} className="import-item-meta">
                {choice.hint}
              </span>
            </span>
          </label>
        ))}
      </fieldset>

      <p className="muted import-hint">
        Tool calls are folded and diffs shown. Secrets (API keys, tokens, your home folder) are
        removed as far as Bridle can tell: review the file before you share it.
      </p>

      {error !== undefined && (
        <p className="error-row import-error" role="alert">
          {error}
        </p>
      )}

      <div className="session-dialog-actions">
        <Dialog.Close asChild>
          <button type="button" className="ghost">
            Cancel
          </button>
        </Dialog.Close>
        <button
          type="button"
          className="primary"
          disabled={isExporting}
          onClick={() => void runExport()}
        >
          {isExporting ? 'Exporting…' : 'Save'}
        </button>
      </div>
    </Dialog.Content>
  )
}

/** The session's title from the tree, else from the open session (a subagent opened from its card). */
function titleOf(state: ShellState, sessionId: string): string {
  const open = state.feed?.session
  const known =
    state.sessions.find((s) => s.id === sessionId) ?? (open?.id === sessionId ? open : undefined)
  return known ? sessionTitle(known) : 'Untitled session'
}

function failureWords(error: BridgeError): string {
  if (error.code === 'DISCONNECTED') {
    return 'Nothing was exported: Bridle is not connected. Try again once it is back.'
  }
  return `Nothing was exported: ${error.message}`
}

/**
 * Saves `text` through the browser's download path: an object URL (a `blob:` URL of the page's
 * own origin, which the CSP does not govern for downloads) on a detached `<a download>`. Being
 * detached, its click reaches no document listener, so the link guard (bridge/links.ts) never
 * sees it.
 */
function saveAsDownload(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS)
}
