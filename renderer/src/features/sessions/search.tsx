import { useEffect, useState } from 'react'
import { useShell } from '../../state/shell-context'
import { SEARCH_INPUT_ID } from '../../state/shortcuts'

/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 200

/** The search box; the query goes to `session/search` once typing pauses. */
export function SearchBox() {
  const setSearch = useShell((s) => s.setSearch)
  const [text, setText] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => void setSearch(text), SEARCH_DELAY_MS)
    return () => clearTimeout(timer)
  }, [text, setSearch])
  return (
    <input
      id={SEARCH_INPUT_ID}
      className="search"
      type="search"
      aria-label="Search sessions"
      placeholder="Search messages…"
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && text !== '') {
          event.stopPropagation()
          setText('')
        }
      }}
    />
  )
}

/** The hits of the search, each opening its session at the matching event. */
export function SearchResults() {
  const search = useShell((s) => s.search)
  const openSession = useShell((s) => s.openSession)
  const openId = useShell((s) => s.feed?.sessionId)
  if (search.isSearching && search.hits.length === 0) {
    return <p className="muted empty">Searching…</p>
  }
  if (search.hits.length === 0) return <p className="muted empty">No messages match.</p>
  return (
    <ul className="search-hits" aria-label="Search results">
      {search.hits.map((hit) => (
        <li key={`${hit.sessionId}:${hit.seq}`}>
          <button
            type="button"
            className={hit.sessionId === openId ? 'hit hit-open' : 'hit'}
            onClick={() => void openSession(hit.sessionId, hit.seq)}
          >
            <span className="hit-title">{hit.title ?? 'Untitled session'}</span>
            <span className="hit-snippet">{highlight(hit.snippet)}</span>
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The snippet with its «hits» marked (the server puts them between « and »). */
function highlight(snippet: string) {
  return snippet
    .split(/(«[^»]*»)/)
    .map((part, i) =>
      part.startsWith('«') && part.endsWith('»') ? (
        <mark key={i}>{part.slice(1, -1)}</mark>
      ) : (
        <span key={i}>{part}</span>
      ),
    )
}
