import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import type { ResultOf } from '../../../../protocol/contract'
import { useShell, useShellContext } from '../../state/shell-context'
import { formatAge } from '../../state/session-tree'
import { useDialogFocus } from '../../state/use-dialog-focus'
import { chosenFolder, folderOptions, formatSize, groupByTool } from './import-choice'
import type { FolderChoice } from './import-choice'

type Scan =
  | { readonly status: 'loading' }
  | { readonly status: 'done'; readonly value: ResultOf<'import/scan'> }
  | { readonly status: 'failed'; readonly message: string }

/**
 * "Import…": a session of Claude Code, Codex CLI, pi or DeepSeek Harness found in their default
 * folders (grouped by tool), or any file by path, becomes a new Bridle session in the project
 * folder the user picks here (`import/scan`, `import/inspect`, `import/run`). The folder the
 * file recorded is offered only when it exists, says it comes from the file, and is never
 * preselected. On success the new session opens.
 */
export function ImportDialog() {
  const isOpen = useShell((s) => s.isImportOpen)
  const setImportOpen = useShell((s) => s.setImportOpen)
  const onClose = () => setImportOpen(false)
  return (
    // Not Radix-modal: its scroll lock injects a <style>, which the strict CSP refuses;
    // useDialogFocus keeps focus inside and returns it to the opener.
    <Dialog.Root open={isOpen} modal={false} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <div className="overlay" aria-hidden="true" />
        {isOpen && <ImportContent onClose={onClose} />}
      </Dialog.Portal>
    </Dialog.Root>
  )
}

function ImportContent({ onClose }: { readonly onClose: () => void }) {
  const { api } = useShellContext()
  const openProject = useShell((s) => s.projectDir)
  const openImported = useShell((s) => s.openImported)
  const focus = useDialogFocus()
  const ids = useId()
  const [scan, setScan] = useState<Scan>({ status: 'loading' })
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [isTypingPath, setTypingPath] = useState(false)
  const [typedPath, setTypedPath] = useState('')
  const [inspected, setInspected] = useState<ResultOf<'import/inspect'> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [choice, setChoice] = useState<FolderChoice>('other')
  const [otherFolder, setOtherFolder] = useState('')
  const [isImporting, setImporting] = useState(false)
  // Only the answer for the file chosen last is shown (arrows move through the list quickly).
  const latest = useRef(0)

  useEffect(() => {
    let isCurrent = true
    void api.call('import/scan', {}).then((result) => {
      if (!isCurrent) return
      setScan(
        result.ok
          ? { status: 'done', value: result.value }
          : { status: 'failed', message: result.error.message },
      )
    })
    return () => {
      isCurrent = false
    }
  }, [api])

  const inspect = async (path: string) => {
    const ticket = ++latest.current
    setSelected(path)
    setInspected(undefined)
    setError(undefined)
    const result = await api.call('import/inspect', { path })
    if (ticket !== latest.current) return
    if (!result.ok) {
      setError(result.error.message)
      return
    }
    setInspected(result.value)
    setChoice(folderOptions(result.value, openProject).initial)
  }

  const options = inspected && folderOptions(inspected, openProject)
  const folder = options && chosenFolder(choice, options, otherFolder)

  const runImport = async () => {
    if (!inspected || folder === undefined) return
    setImporting(true)
    setError(undefined)
    const result = await api.call('import/run', { path: inspected.path, projectDir: folder })
    setImporting(false)
    if (!result.ok) {
      setError(result.error.message)
      return
    }
    onClose()
    await openImported(result.value.session)
  }

  return (
    <Dialog.Content {...focus} aria-modal="true" className="dialog import-dialog">
      <div className="dialog-head">
        <Dialog.Title>Import a session</Dialog.Title>
        <Dialog.Close asChild>
          <button type="button" className="ghost">
            <X size={16} aria-hidden="true" />
            Close
          </button>
        </Dialog.Close>
      </div>
      <Dialog.Description className="muted import-intro">
        A session of Claude Code, Codex CLI, pi or DeepSeek Harness, or a Bridle export, becomes a
        new session here. The file itself is left as it is.
      </Dialog.Description>

      <fieldset className="import-section">
        <legend>Session</legend>
        <ScannedList
          scan={scan}
          selected={selected}
          describedBy={ids}
          onSelect={(path) => void inspect(path)}
        />
        {isTypingPath ? (
          <form
            className="open-project import-path"
            onSubmit={(event) => {
              event.preventDefault()
              const trimmed = typedPath.trim()
              if (trimmed !== '') void inspect(trimmed)
            }}
          >
            <input
              aria-label="Session file path"
              placeholder="/path/to/session.jsonl or ~/session.jsonl"
              value={typedPath}
              onChange={(event) => setTypedPath(event.target.value)}
              autoFocus
            />
            <button type="submit" disabled={typedPath.trim() === ''}>
              Read file
            </button>
          </form>
        ) : (
          <button type="button" className="ghost import-choose" onClick={() => setTypingPath(true)}>
            Choose file…
          </button>
        )}
      </fieldset>

      {inspected && options && (
        <fieldset className="import-section">
          <legend>Project folder</legend>
          <p className="import-selected">
            <span className="muted">{inspected.label}:</span>{' '}
            <code className="import-path-text">{inspected.displayPath}</code>
          </p>
          <p className="muted import-hint">
            The agent reads, writes and runs commands in this folder when you continue the session.
          </p>
          {options.recorded !== undefined && (
            <label className="import-folder">
              <input
                type="radio"
                name={`${ids}-folder`}
                checked={choice === 'recorded'}
                onChange={() => setChoice('recorded')}
              />
              <span>
                The folder recorded in the file <code>{options.recorded}</code>{' '}
                <span className="muted">(from the file: check it is yours)</span>
              </span>
            </label>
          )}
          {options.recordedMissing !== undefined && (
            <p className="muted import-hint">
              The file recorded <code>{options.recordedMissing}</code>, which is not a folder here.
            </p>
          )}
          {options.open !== undefined && (
            <label className="import-folder">
              <input
                type="radio"
                name={`${ids}-folder`}
                checked={choice === 'open'}
                onChange={() => setChoice('open')}
              />
              <span>
                The open project <code>{options.open}</code>
              </span>
            </label>
          )}
          <label className="import-folder">
            <input
              type="radio"
              name={`${ids}-folder`}
              checked={choice === 'other'}
              onChange={() => setChoice('other')}
            />
            <span>Another folder</span>
          </label>
          {choice === 'other' && (
            <input
              className="import-other-folder"
              aria-label="Project folder path"
              placeholder="/path/to/project or ~/project"
              value={otherFolder}
              onChange={(event) => setOtherFolder(event.target.value)}
            />
          )}
        </fieldset>
      )}

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
          disabled={folder === undefined || isImporting}
          onClick={() => void runImport()}
        >
          {isImporting ? 'Importing…' : 'Import'}
        </button>
      </div>
    </Dialog.Content>
  )
}

function ScannedList({
  scan,
  selected,
  describedBy,
  onSelect,
}: {
  readonly scan: Scan
  readonly selected: string | undefined
  readonly describedBy: string
  readonly onSelect: (path: string) => void
}) {
  if (scan.status === 'loading') {
    return <p className="muted import-hint">Looking for sessions on this computer…</p>
  }
  if (scan.status === 'failed') {
    return (
      <p className="error-row" role="alert">
        Could not look for sessions: {scan.message}
      </p>
    )
  }
  const groups = groupByTool(scan.value)
  if (groups.length === 0) {
    return (
      <p className="muted import-hint">
        No sessions found in {scan.value.folders.map((f) => f.folder).join(', ')}. Choose a file
        instead.
      </p>
    )
  }
  const now = Date.now()
  return (
    <div className="import-groups">
      {groups.map((group) => (
        <div
          key={group.tool}
          role="radiogroup"
          aria-label={`${group.label} sessions`}
          className="import-group"
        >
          <h3>
            {group.label} <span className="import-folder-name">{group.folder}</span>
          </h3>
          {group.sessions.map((session, index) => {
            const metaId = `${describedBy}-${group.tool}-${index}`
            return (
              <label key={session.path} className="import-item" title={session.displayPath}>
                <input
                  type="radio"
                  name={`${describedBy}-session`}
                  checked={selected === session.path}
                  onChange={() => onSelect(session.path)}
                  aria-describedby={metaId}
                />
                <span className="import-item-text">
                  <span className="import-item-title">{session.title ?? 'Untitled session'}</span>
                  <span id={metaId} className="import-item-meta">
                    {formatAge(session.modifiedAt, now)} · {formatSize(session.bytes)}
                    {session.recordedProjectDir !== undefined && ` · ${session.recordedProjectDir}`}
                  </span>
                </span>
              </label>
            )
          })}
        </div>
      ))}
    </div>
  )
}
