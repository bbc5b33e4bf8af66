import { useState } from 'react'
import type { BridleApi } from '../../../../protocol/contract'

/** What a card shows before "more": enough to see how a command went, little enough to scroll past. */
const PREVIEW_LINES = 10
const PREVIEW_CHARS = 1500
/** One page of a spilled output; the contract allows up to 1 MiB. */
const PAGE_BYTES = 256 * 1024

interface FullOutput {
  readonly text: string
  readonly totalBytes: number
  readonly nextOffset: number | null
}

/**
 * A spilled binary output (OutputSpill names its bytes `<session>/<call>.bin`): the output in the
 * log is already a text summary (format, size, checksum), and the bytes as text would be noise.
 */
export const isBinaryRef = (outputRef: string | undefined): boolean =>
  outputRef?.endsWith('.bin') === true

/** The first lines of `text`, and whether anything was left out. */
export function previewOf(text: string): { readonly text: string; readonly isCut: boolean } {
  const lines = text.split('\n')
  let shown = lines.slice(0, PREVIEW_LINES).join('\n')
  if (shown.length > PREVIEW_CHARS) shown = shown.slice(0, PREVIEW_CHARS)
  return { text: shown, isCut: shown.length < text.length }
}

interface ToolOutputProps {
  readonly api: BridleApi
  readonly output: string
  /** Where the whole output is kept when the model was given a cut version. */
  readonly outputRef?: string
}

/**
 * A tool's output: a preview, "show more" for the rest of what the log holds, and, when the
 * output was spilled (`outputRef`), "show full output" reading it page by page from the data
 * folder (`output/read`), so a 50 MB log is never pulled into the page at once. A binary
 * output's summary is shown as it is, without "show full output".
 */
export function ToolOutput({ api, output, outputRef }: ToolOutputProps) {
  const [isExpanded, setExpanded] = useState(false)
  const [full, setFull] = useState<FullOutput | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [isLoading, setLoading] = useState(false)
  const preview = previewOf(output)

  const loadPage = async (offset: number) => {
    if (outputRef === undefined) return
    setLoading(true)
    setError(undefined)
    try {
      const result = await api.call('output/read', { outputRef, offset, length: PAGE_BYTES })
      if (!result.ok) {
        setError(`Could not read the full output: ${result.error.message}`)
        return
      }
      const page = result.value
      setFull((before) => ({
        text: (offset === 0 || !before ? '' : before.text) + page.text,
        totalBytes: page.totalBytes,
        nextOffset: page.nextOffset,
      }))
      setExpanded(true)
    } catch (failure) {
      setError(`Could not read the full output: ${String(failure)}`)
    } finally {
      setLoading(false)
    }
  }

  const text = full?.text ?? (isExpanded ? output : preview.text)
  if (output === '' && full === undefined) return <p className="muted tool-empty">(no output)</p>
  return (
    <div className="tool-output">
      <pre className="tool-output-text">{text}</pre>
      <div className="row tool-output-actions">
        {full === undefined && preview.isCut && (
          <button type="button" className="link" onClick={() => setExpanded(!isExpanded)}>
            {isExpanded ? 'Show less' : 'Show more'}
          </button>
        )}
        {outputRef !== undefined && !isBinaryRef(outputRef) && full === undefined && (
          <button
            type="button"
            className="link"
            disabled={isLoading}
            onClick={() => void loadPage(0)}
          >
            Show full output
          </button>
        )}
        {full !== undefined && (
          <span className="muted">
            {formatBytes(Math.min(byteLength(full.text), full.totalBytes))} of{' '}
            {formatBytes(full.totalBytes)}
          </span>
        )}
        {full?.nextOffset != null && (
          <button
            type="button"
            className="link"
            disabled={isLoading}
            onClick={() => void loadPage(full.nextOffset ?? 0)}
          >
            Load more
          </button>
        )}
        {isLoading && <span className="muted">Loading…</span>}
        {error !== undefined && <span className="error-row">{error}</span>}
      </div>
    </div>
  )
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
