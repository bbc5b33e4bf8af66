/**
 * The colour theme: the OS's (`prefers-color-scheme`) unless the user picked light or dark, which
 * is kept in localStorage. The choice is applied as `data-theme` on the root element, where
 * styles.css switches its variables; `color-scheme` follows so form controls and scrollbars match.
 *
 * `useTheme()` and `setTheme()` are the settings panel's control; the shell calls `applyTheme()`
 * once at start.
 */
import { useSyncExternalStore } from 'react'

export type ThemeChoice = 'light' | 'dark' | 'system'
export type ResolvedTheme = 'light' | 'dark'

const STORAGE_KEY = 'bridle.theme'
const DARK_QUERY = '(prefers-color-scheme: dark)'
const listeners = new Set<() => void>()

export interface ThemeState {
  readonly choice: ThemeChoice
  /** What is shown now: the choice, or the OS's when the choice is `system`. */
  readonly resolved: ResolvedTheme
}

let current: ThemeState = { choice: 'system', resolved: 'light' }

/** The current choice and what it resolves to; re-renders when either changes. */
export function useTheme(): ThemeState {
  return useSyncExternalStore(subscribe, snapshot, snapshot)
}

/** Sets and remembers the choice, and applies it at once. */
export function setTheme(choice: ThemeChoice): void {
  try {
    globalThis.localStorage.setItem(STORAGE_KEY, choice)
  } catch {
    // Not remembering is harmless: the choice still applies until the page reloads.
  }
  update(choice)
}

/** Reads the stored choice, applies it, and follows the OS from now on. Returns a disposer. */
export function applyTheme(): () => void {
  const media = globalThis.matchMedia(DARK_QUERY)
  const onChange = () => update(current.choice)
  media.addEventListener('change', onChange)
  update(readChoice())
  return () => media.removeEventListener('change', onChange)
}

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return value === 'light' || value === 'dark' || value === 'system'
}

function update(choice: ThemeChoice): void {
  const resolved: ResolvedTheme =
    choice === 'system' ? (globalThis.matchMedia(DARK_QUERY).matches ? 'dark' : 'light') : choice
  if (choice !== current.choice || resolved !== current.resolved) {
    current = { choice, resolved }
    for (const listener of listeners) listener()
  }
  const root = globalThis.document.documentElement
  root.dataset['theme'] = resolved
  root.style.colorScheme = resolved
}

function readChoice(): ThemeChoice {
  try {
    const stored = globalThis.localStorage.getItem(STORAGE_KEY)
    return isThemeChoice(stored) ? stored : 'system'
  } catch {
    return 'system'
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

function snapshot(): ThemeState {
  return current
}
