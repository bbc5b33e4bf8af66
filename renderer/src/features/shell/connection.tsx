import { useShell } from '../../state/shell-context'

/** Shown instead of the app when the page has no bridge: never a blank screen. */
export function NoBridge({ message }: { readonly message: string }) {
  return (
    <main className="no-bridge" aria-label="Chat">
      <section className="card" role="alert">
        <h1>Bridle cannot reach its main process</h1>
        <p>{message}</p>
        <ul>
          <li>
            In a browser: run <code>bridle serve</code> and open the address it prints (with its
            token).
          </li>
          <li>Or start the desktop app.</li>
        </ul>
      </section>
    </main>
  )
}

/**
 * The connection's state when it is not simply fine: connecting, or lost with what to do. The
 * WebSocket client reconnects by itself; "Retry now" only asks again at once.
 */
export function ConnectionBanner() {
  const connection = useShell((s) => s.connection)
  const start = useShell((s) => s.start)
  if (connection.status === 'ready') return null
  if (connection.status === 'connecting') {
    return (
      <div className="banner banner-info" role="status">
        Connecting to Bridle…
      </div>
    )
  }
  return (
    <div className="banner banner-error" role="alert" title={connection.message}>
      <span>
        Lost the connection to Bridle. It reconnects by itself; if this lasts, check that{' '}
        <code>bridle serve</code> (or the app) is still running, then reload the page.
      </span>
      <button type="button" onClick={() => void start()}>
        Retry now
      </button>
    </div>
  )
}

/** The last failed action, in words, until dismissed. */
export function NoticeBar() {
  const notice = useShell((s) => s.notice)
  const dismiss = useShell((s) => s.dismissNotice)
  if (notice === undefined) return null
  return (
    <div className="banner banner-error" role="alert">
      <span>{notice}</span>
      <button type="button" onClick={dismiss} aria-label="Dismiss">
        ×
      </button>
    </div>
  )
}
