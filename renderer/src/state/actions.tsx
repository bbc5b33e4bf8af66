/**
 * What the named actions of state/shortcuts.ts do: features register a handler with
 * `useAction(name, handler)` for as long as they are mounted; the shell binds the keys once
 * (`useActionKeys`) and runs the most recently registered handler of the action pressed.
 *
 * A handler returns `false` to decline (Escape while nothing runs): the key then stays the
 * page's, unprevented. An action nobody handles (yet) does nothing and leaves the key alone.
 */
import { createContext, useContext, useEffect, useRef } from 'react'
import { actionForKey } from './shortcuts'
import type { ActionName } from './shortcuts'

/** Returns `false` to decline; anything else means handled. */
export type ActionHandler = () => unknown

export interface ActionRegistry {
  /** Adds a handler; the returned function removes it. */
  readonly register: (name: ActionName, handler: ActionHandler) => () => void
  /** Runs the action's newest handler; false when none took it. */
  readonly run: (name: ActionName) => boolean
  readonly isHandled: (name: ActionName) => boolean
}

export function createActionRegistry(): ActionRegistry {
  const handlers = new Map<ActionName, ActionHandler[]>()
  return {
    register(name, handler) {
      const list = handlers.get(name) ?? []
      handlers.set(name, [...list, handler])
      return () => {
        handlers.set(
          name,
          (handlers.get(name) ?? []).filter((candidate) => candidate !== handler),
        )
      }
    },
    run(name) {
      const list = handlers.get(name) ?? []
      for (let index = list.length - 1; index >= 0; index -= 1) {
        if (list[index]?.() !== false) return true
      }
      return false
    },
    isHandled(name) {
      return (handlers.get(name)?.length ?? 0) > 0
    },
  }
}

export const ActionContext = createContext<ActionRegistry | undefined>(undefined)

function useRegistry(): ActionRegistry {
  const registry = useContext(ActionContext)
  if (!registry) throw new Error('useAction is used outside the shell (no ActionContext above it)')
  return registry
}

/** Binds what `name` does while the calling component is mounted; the handler may change. */
export function useAction(name: ActionName, handler: ActionHandler): void {
  const registry = useRegistry()
  const latest = useRef(handler)
  useEffect(() => {
    latest.current = handler
  })
  useEffect(() => registry.register(name, () => latest.current()), [registry, name])
}

/** Runs an action by name (a button that does what a key does). */
export function useRunAction(): (name: ActionName) => boolean {
  return useRegistry().run
}

/** Binds the registry's keys on the window for as long as the caller is mounted. */
export function useActionKeys(registry: ActionRegistry): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return
      const name = actionForKey(event, isTyping(event.target))
      if (name !== undefined && registry.run(name)) event.preventDefault()
    }
    globalThis.addEventListener('keydown', onKey)
    return () => globalThis.removeEventListener('keydown', onKey)
  }, [registry])
}

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  )
}
