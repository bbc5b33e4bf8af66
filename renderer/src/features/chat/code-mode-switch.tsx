import * as Tooltip from '@radix-ui/react-tooltip'
import { useEffect, useId, useState } from 'react'
import type { BridleApi } from '../../../../protocol/contract'
import './code-mode-switch.css'

export interface CodeModeSwitchProps {
  readonly api: BridleApi
  readonly sessionId: string
  /** Whether the log's last `session/code-mode` turned code mode on. */
  readonly isLoggedOn: boolean
}

/** What the switch's tooltip says, in one sentence. */
export const CODE_MODE_HINT =
  'Lets the model write one JavaScript program that calls the tools, instead of one tool call per reply; applies from the next turn.'

/**
 * The session's code mode, in the chat header beside the model's badge: a labelled switch (a checkbox with the
 * switch role, so Space toggles it). Its state is the log's (`session/code-mode`); a flip is
 * shown at once and kept until the switch comes back as an event, or undone with the host's
 * sentence when it refuses.
 */
export function CodeModeSwitch({ api, sessionId, isLoggedOn: logged }: CodeModeSwitchProps) {
  const [wanted, setWanted] = useState<boolean | undefined>()
  const [error, setError] = useState<string | undefined>()
  const hintId = useId()
  useEffect(() => {
    setWanted(undefined)
    setError(undefined)
  }, [sessionId])
  // The log caught up with the flip: from now on it speaks.
  useEffect(() => {
    if (wanted === logged) setWanted(undefined)
  }, [wanted, logged])
  const isOn = wanted ?? logged

  const flip = async (on: boolean) => {
    setWanted(on)
    setError(undefined)
    const result = await api.call('session/setCodeMode', { sessionId, on })
    if (!result.ok) {
      setWanted(undefined)
      setError(`Code mode was not changed: ${result.error.message}`)
    }
  }

  return (
    <div className="code-mode">
      <Tooltip.Root>
        <Tooltip.Trigger asChild>
          <label className={`code-mode-switch${isOn ? ' is-on' : ''}`}>
            <input
              type="checkbox"
              role="switch"
              checked={isOn}
              aria-describedby={hintId}
              onChange={(e) => void flip(e.target.checked)}
            />
            <span className="code-mode-track" aria-hidden="true">
              <span className="code-mode-thumb" />
            </span>
            Code mode
          </label>
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Content className="tooltip" sideOffset={5}>
            {CODE_MODE_HINT}
            <Tooltip.Arrow className="tooltip-arrow" />
          </Tooltip.Content>
        </Tooltip.Portal>
      </Tooltip.Root>
      <span id={hintId} hidden>
        {CODE_MODE_HINT}
      </span>
      {error !== undefined && (
        <span role="alert" className="code-mode-error">
          {error}
        </span>
      )}
    </div>
  )
}
