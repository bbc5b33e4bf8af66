import { useEffect, useState } from 'react'
import { ChatPanel, Composer, ModelPicker, useMcpSource, useProjectFiles } from '../chat'
import { FirstRun } from '../first-run'
import { useShell, useShellContext } from '../../state/shell-context'
import { ForkBanner } from './fork-banner'
import { useSessionPanelProps } from './panel-props'

/**
 * The centre: where a fork branched, the conversation, and the composer below it. With no
 * endpoint configured it shows the first-run guide instead, keeping the sidebar and settings;
 * a session opened then is still readable (its history needs no model), with a way back to the
 * guide where the composer would be.
 */
export function ChatArea() {
  const { api } = useShellContext()
  const hasEndpoints = useShell((s) => s.hasEndpoints)
  const setConfigured = useShell((s) => s.setEndpointsConfigured)
  const props = useSessionPanelProps()
  const feed = useShell((s) => s.feed)
  const projectDir = useShell((s) => s.projectDir)
  const send = useShell((s) => s.send)
  const stop = useShell((s) => s.stop)
  const closeSession = useShell((s) => s.closeSession)
  const isRunning = feed?.isRunning ?? false
  const listFiles = useProjectFiles(api, feed?.sessionId, projectDir)
  const mcp = useMcpSource(api, feed?.session?.projectDir ?? projectDir)
  // Once shown, first run stays until it says it is done: saving its endpoint makes the settings
  // configured before it has stored the key and tested the endpoint, and that is not the end.
  const [isFirstRunOpen, setFirstRunOpen] = useState(false)
  const isUnconfigured = hasEndpoints === false && feed === undefined
  useEffect(() => {
    if (isUnconfigured) setFirstRunOpen(true)
  }, [isUnconfigured])
  if ((isUnconfigured || isFirstRunOpen) && feed === undefined) {
    const done = () => {
      setFirstRunOpen(false)
      setConfigured()
    }
    return (
      <main className="chat-area" aria-label="Chat">
        <div className="chat-body first-run-slot">
          <FirstRun api={api} onDone={done} />
        </div>
      </main>
    )
  }
  return (
    <main className="chat-area" aria-label="Chat">
      {props && <ForkBanner session={props.feed.session} />}
      <div className="chat-body">
        {props ? (
          <ChatPanel {...props} />
        ) : feed?.error !== undefined ? (
          <p role="alert" className="error-row empty">
            Could not open the session: {feed.error}
          </p>
        ) : feed ? (
          <p className="muted empty" aria-busy="true">
            Opening the session…
          </p>
        ) : (
          <EmptyChat projectDir={projectDir} />
        )}
      </div>
      <div className="composer-slot">
        {hasEndpoints === false ? (
          <p className="composer-notice" role="status">
            No model is connected, so this session can be read but not continued.{' '}
            <button type="button" onClick={closeSession}>
              Connect a model
            </button>
          </p>
        ) : (
          <Composer
            isRunning={isRunning}
            disabled={projectDir === undefined}
            onSend={(text, attachments) => send(text, attachments)}
            onStop={() => void stop()}
            tools={
              props && (
                <ModelPicker
                  api={api}
                  sessionId={props.feed.session.id}
                  model={props.feed.session.model}
                  endpointId={props.feed.profile?.endpointId}
                />
              )
            }
            listFiles={listFiles}
            mcp={mcp}
          />
        )}
      </div>
    </main>
  )
}

function EmptyChat({ projectDir }: { readonly projectDir: string | undefined }) {
  if (projectDir === undefined) {
    return (
      <div className="empty">
        <h2>No project open</h2>
        <p className="muted">
          Open a project folder in the sidebar: the agent works inside it, and its sessions are
          listed there.
        </p>
      </div>
    )
  }
  return (
    <div className="empty">
      <h2>New conversation</h2>
      <p className="muted">
        Type a message below to start a session in <code>{projectDir}</code>, or pick one in the
        sidebar.
      </p>
    </div>
  )
}
