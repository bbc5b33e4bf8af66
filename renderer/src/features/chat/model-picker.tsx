import * as Select from '@radix-ui/react-select'
import { Check, ChevronDown } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useAction } from '../../state/actions'
import type { BridleApi, ModelInfo } from '../../../../protocol/contract'
import { contextWindowText, toolSupportText, withDefaults } from '../settings'
import '../../ui/select.css'
import './model-picker.css'

export interface ModelPickerProps {
  readonly api: BridleApi
  readonly sessionId: string
  /** The session's model now (its summary), and its endpoint when the runtime has resolved it. */
  readonly model: string | null
  readonly endpointId: string | undefined
}

interface Choice {
  readonly endpointId: string
  readonly model: ModelInfo
}

const SEPARATOR = '\u0000'
const valueOf = (endpointId: string, model: string) => `${endpointId}${SEPARATOR}${model}`

/**
 * The session's model, in the composer: every model of every configured endpoint, with what is
 * known of it (window, tools). Choosing one logs a `session/model` switch: the next turn uses it
 * (a running turn keeps its model). "Use as default" makes the session's model the default of
 * new sessions, through the settings like the Settings page does.
 */
export function ModelPicker({ api, sessionId, model, endpointId }: ModelPickerProps) {
  const choices = useChoices(api)
  const [chosen, setChosen] = useState<{ endpointId?: string; model: string } | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [isOpen, setOpen] = useState(false)
  useAction('open-model-picker', () => setOpen(true))
  useEffect(() => setChosen(undefined), [sessionId])
  const current = chosen ?? (model === null ? undefined : { endpointId, model })
  const currentValue =
    current === undefined
      ? undefined
      : (choices.find(
          (c) =>
            c.model.id === current.model &&
            (current.endpointId === undefined || c.endpointId === current.endpointId),
        ) ?? undefined)

  const choose = async (value: string) => {
    const [endpoint = '', name = ''] = value.split(SEPARATOR)
    setChosen({ endpointId: endpoint, model: name })
    const result = await api.call('session/setModel', {
      sessionId,
      endpointId: endpoint,
      model: name,
    })
    setError(result.ok ? undefined : result.error.message)
  }

  const makeDefault = async () => {
    if (current?.endpointId === undefined) return
    const view = await api.call('settings/get', {})
    if (!view.ok) return setError(view.error.message)
    const target = { endpointId: current.endpointId, model: current.model }
    const saved = await api.call('settings/update', {
      config: withDefaults(view.value.config, target),
    })
    setError(saved.ok ? undefined : saved.error.message)
  }

  return (
    <div className="model-picker">
      <Select.Root
        {...(currentValue === undefined
          ? {}
          : { value: valueOf(currentValue.endpointId, currentValue.model.id) })}
        onValueChange={(value) => void choose(value)}
        open={isOpen}
        onOpenChange={setOpen}
      >
        <Select.Trigger className="select-trigger model-picker-trigger" aria-label="Model">
          <Select.Value placeholder={current?.model ?? 'Choose a model'}>
            {current?.model}
          </Select.Value>
          <Select.Icon className="select-icon">
            <ChevronDown size={14} aria-hidden="true" />
          </Select.Icon>
        </Select.Trigger>
        <Select.Portal>
          <Select.Content
            className="select-content model-picker-content"
            position="popper"
            sideOffset={4}
          >
            <Select.Viewport>
              {choices.length === 0 && (
                <p className="model-picker-empty muted">No models listed by the endpoints.</p>
              )}
              {choices.map((choice) => (
                <Select.Item
                  key={valueOf(choice.endpointId, choice.model.id)}
                  value={valueOf(choice.endpointId, choice.model.id)}
                  className="select-item model-picker-item"
                >
                  <Select.ItemText>{choice.model.id}</Select.ItemText>
                  <span className="model-picker-facts muted">{factsOf(choice)}</span>
                  <Select.ItemIndicator className="select-check model-picker-check">
                    <Check size={14} aria-hidden="true" />
                  </Select.ItemIndicator>
                </Select.Item>
              ))}
            </Select.Viewport>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
      <button
        type="button"
        className="model-picker-default"
        disabled={current?.endpointId === undefined}
        onClick={() => void makeDefault()}
        title="New sessions start with this model"
      >
        Use as default
      </button>
      {error !== undefined && (
        <span role="alert" className="model-picker-error">
          {error}
        </span>
      )}
    </div>
  )
}

/** "on local · 32k window · tools: yes": what is known of a model, in a few words. */
function factsOf({ endpointId, model }: Choice): string {
  const tools = toolSupportText(model)
  return [
    `on ${endpointId}`,
    model.contextWindow === undefined ? '' : contextWindowText(model),
    tools === 'unknown' ? '' : `tools: ${tools}`,
    model.probe === undefined ? '' : 'tested',
  ]
    .filter(Boolean)
    .join(' · ')
}

/** The models of every configured endpoint; an endpoint that does not answer lists none. */
function useChoices(api: BridleApi): readonly Choice[] {
  const [choices, setChoices] = useState<readonly Choice[]>([])
  useEffect(() => {
    const state = { isCurrent: true }
    void (async () => {
      const listed = await api.call('endpoint/list', {})
      if (!listed.ok) return
      const all = await Promise.all(
        listed.value.endpoints.map(async (endpoint) => {
          const models = await api.call('model/list', { endpointId: endpoint.id })
          return models.ok
            ? models.value.models.map((model) => ({ endpointId: endpoint.id, model }))
            : []
        }),
      )
      if (state.isCurrent) setChoices(all.flat())
    })()
    return () => {
      state.isCurrent = false
    }
  }, [api])
  return choices
}
