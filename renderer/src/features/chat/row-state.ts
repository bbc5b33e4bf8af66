import { createContext, useCallback, useContext, useState } from 'react'

/**
 * View state of chat rows that must outlive the row: the list is virtualised, so a card
 * scrolled out of view is unmounted, and a card the user opened must still be open when it
 * comes back. ChatPanel provides one map per session; rows read and write it by their own key.
 */
export const RowStateContext = createContext<Map<string, unknown>>(new Map())

/** `useState` whose value is kept in the panel's row-state map under `key`. */
export function useRowState<T>(
  key: string,
  initial: T,
  isT: (value: unknown) => value is T,
): readonly [T, (value: T) => void] {
  const store = useContext(RowStateContext)
  const [value, setValue] = useState<T>(() => {
    const kept = store.get(key)
    return isT(kept) ? kept : initial
  })
  const set = useCallback(
    (next: T) => {
      store.set(key, next)
      setValue(next)
    },
    [store, key],
  )
  return [value, set] as const
}

export const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean'
export const isStringSet = (value: unknown): value is ReadonlySet<string> => value instanceof Set
