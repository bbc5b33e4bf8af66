/**
 * The composer's `/` commands: the project's MCP prompts, listed while the first word of the
 * message is a `/word`, picked like a file (arrows, Enter or Tab, Escape closes). A prompt with
 * arguments asks for them first (`form`); then `mcp/prompt` fills it in and its text takes the
 * command's place in the message, for the user to read and send. The host's sentence for a
 * prompt that failed is `error`, shown where the composer shows errors.
 */
import { useCallback, useEffect, useId, useState } from 'react'
import type { KeyboardEvent, RefObject } from 'react'
import type { McpCatalogView, McpPromptView } from '../../../../../protocol/mcp'
import { applyCommand, applyPrompt, argumentsToSend, matchPrompts, slashAt } from './slash'
import type { SlashQuery } from './slash'
import type { McpSource } from './use-mcp-source'

export interface SlashOptions {
  readonly text: string
  readonly setText: (next: string | ((now: string) => string)) => void
  readonly inputRef: RefObject<HTMLTextAreaElement | null>
  readonly source: McpSource | undefined
  readonly catalog: McpCatalogView | undefined
  /** Called when the list opens (the composer fetches the catalog then). */
  readonly onOpen: () => void
}

/** A prompt waiting for its arguments, or being filled in. */
export interface PromptRequest {
  readonly prompt: McpPromptView
  readonly isFilling: boolean
}

export function useSlash({ text, setText, inputRef, source, catalog, onOpen }: SlashOptions) {
  const listId = useId()
  const [slash, setSlash] = useState<SlashQuery>()
  const [active, setActive] = useState(0)
  const [request, setRequest] = useState<PromptRequest>()
  const [error, setError] = useState<string>()

  const matches = slash && catalog ? matchPrompts(catalog.prompts, slash.query) : []
  const isOpen = slash !== undefined && request === undefined && matches.length > 0

  const isAsking = slash !== undefined
  useEffect(() => {
    if (isAsking) onOpen()
  }, [isAsking, onOpen])

  const track = useCallback(
    (value: string, caret: number) => {
      const next = source ? slashAt(value, caret) : undefined
      setSlash(next)
      if (next?.query !== slash?.query) setActive(0)
    },
    [source, slash?.query],
  )

  const focusEnd = () =>
    requestAnimationFrame(() => {
      const input = inputRef.current
      if (!input) return
      input.focus()
      input.setSelectionRange(input.value.length, input.value.length)
    })

  /** Asks the host for the prompt's text with `values` and puts it in the message. */
  const fill = (prompt: McpPromptView, values: Readonly<Record<string, string>>) => {
    if (!source) return
    setRequest({ prompt, isFilling: true })
    setError(undefined)
    source.fillPrompt(prompt.server, prompt.name, argumentsToSend(values)).then(
      (filled) => {
        setText((now) => applyPrompt(now, prompt.command, filled))
        setRequest(undefined)
        focusEnd()
      },
      (failure: unknown) => {
        const why = failure instanceof Error ? failure.message : String(failure)
        setError(`Could not fill in ${prompt.command}: ${why}`)
        setRequest(undefined)
        focusEnd()
      },
    )
  }

  const pick = (prompt: McpPromptView) => {
    if (!slash) return
    setText(applyCommand(text, slash, prompt.command))
    setSlash(undefined)
    setError(undefined)
    if (prompt.arguments.length > 0) setRequest({ prompt, isFilling: false })
    else fill(prompt, {})
  }

  const cancel = () => {
    setRequest(undefined)
    focusEnd()
  }

  /** Handles the list's keys; true when the key was the list's. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!isOpen) return false
    switch (event.key) {
      case 'ArrowDown':
        setActive((i) => (i + 1) % matches.length)
        break
      case 'ArrowUp':
        setActive((i) => (i - 1 + matches.length) % matches.length)
        break
      case 'Enter':
      case 'Tab': {
        if (event.nativeEvent.isComposing) return false
        const prompt = matches[Math.min(active, matches.length - 1)]
        if (prompt !== undefined) pick(prompt)
        break
      }
      case 'Escape':
        setSlash(undefined)
        break
      default:
        return false
    }
    event.preventDefault()
    // Escape here closes the list; it must not also stop the running turn.
    event.stopPropagation()
    return true
  }

  return {
    error,
    clearError: () => setError(undefined),
    track,
    onKeyDown,
    request,
    submit: (values: Readonly<Record<string, string>>) => request && fill(request.prompt, values),
    cancel,
    list: {
      listId,
      isOpen,
      matches,
      failures: catalog?.failures ?? [],
      active: Math.min(active, Math.max(0, matches.length - 1)),
      optionId: (index: number) => `${listId}-option-${index}`,
      pick,
      setActive,
    },
  }
}
