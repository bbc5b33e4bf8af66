/**
 * The app's keyboard, in one registry: every named action with its keys and what it does. The
 * help overlay lists exactly this table; features bind what an action does with
 * `useAction(name, handler)` (state/actions.tsx), so a key never has two meanings and an action
 * can be named here before the feature that does it exists (it is then simply not handled).
 *
 * Keys that belong to one widget (the composer's Enter, the session tree's arrows) are bound by
 * that widget and only listed here (`LISTED_KEYS`).
 */

const isMac = /Mac|iPhone|iPad/.test(globalThis.navigator.userAgent)

/** "Ctrl+K" or "⌘K", as this platform says it. */
export function shortcutLabel(key: string): string {
  return isMac ? `⌘${key}` : `Ctrl+${key}`
}

/** One key combination. `mod` is Ctrl, or ⌘ on a Mac. */
export interface KeyChord {
  /** `KeyboardEvent.key`, lower case for letters ("n", ",", "/", "F1", "Escape"). */
  readonly key: string
  readonly mod?: boolean
  readonly alt?: boolean
}

export interface ActionSpec {
  readonly keys: readonly KeyChord[]
  /** What it does, for the help overlay. */
  readonly what: string
  /**
   * True when the keys act even while the user types in a field. Chords with Ctrl or Alt
   * usually do; a bare "/" or "?" must not, since it is text there.
   */
  readonly whileTyping: boolean
}

/**
 * Every action. The names are the API features bind to; the order is the help's order.
 * A browser keeps Ctrl+N (a new window) for itself, so `bridle serve` users get Alt+N.
 */
export const ACTIONS = {
  'new-session': {
    keys: [
      { key: 'n', mod: true },
      { key: 'n', alt: true },
    ],
    what: 'New session',
    whileTyping: true,
  },
  'focus-composer': { keys: [{ key: '/' }], what: 'Write a message', whileTyping: false },
  search: { keys: [{ key: 'k', mod: true }], what: 'Search the sessions', whileTyping: true },
  'toggle-sidebar': {
    keys: [{ key: 'b', mod: true }],
    what: 'Show or hide the sessions',
    whileTyping: true,
  },
  'toggle-inspector': {
    keys: [{ key: 'i', mod: true }],
    what: 'Show or hide the inspector',
    whileTyping: true,
  },
  'show-timeline': {
    keys: [{ key: '1', alt: true }],
    what: 'Inspector: the timeline',
    whileTyping: true,
  },
  'show-checkpoints': {
    keys: [{ key: '2', alt: true }],
    what: 'Inspector: the checkpoints',
    whileTyping: true,
  },
  'open-settings': { keys: [{ key: ',', mod: true }], what: 'Settings', whileTyping: true },
  'open-model-picker': {
    keys: [{ key: 'm', alt: true }],
    what: 'Choose the model',
    whileTyping: true,
  },
  'fork-here': {
    keys: [{ key: 'f', alt: true }],
    what: 'Fork the session at the selected message',
    whileTyping: true,
  },
  regenerate: {
    keys: [{ key: 'r', alt: true }],
    what: 'Regenerate the last answer',
    whileTyping: true,
  },
  'edit-last-message': {
    keys: [{ key: 'e', alt: true }],
    what: 'Edit your last message',
    whileTyping: true,
  },
  back: {
    keys: [{ key: 'Escape' }],
    what: 'Stop the running turn, or leave the settings',
    whileTyping: true,
  },
  help: { keys: [{ key: '?' }, { key: 'F1' }], what: 'This help', whileTyping: false },
} as const satisfies Record<string, ActionSpec>

export type ActionName = keyof typeof ACTIONS

export const ACTION_NAMES = Object.keys(ACTIONS) as ActionName[]

/** Keys bound by a widget of their own, listed in the help with the actions. */
export const LISTED_KEYS: readonly { readonly keys: string; readonly what: string }[] = [
  { keys: 'Enter', what: 'Send the message' },
  { keys: 'Shift+Enter', what: 'New line in the message' },
  { keys: '↑ ↓ Home End', what: 'Session tree: move between sessions' },
  { keys: '→ ←', what: 'Session tree: show or hide forks, go into them or back to the parent' },
  { keys: 'F2 / Delete', what: 'Session tree: rename / move to the trash' },
  { keys: 'Shift+F10 / Menu', what: 'Session tree: rename, fork or delete (a menu)' },
]

export const SEARCH_INPUT_ID = 'session-search'

/** How a chord is written for people: "Ctrl+,", "Alt+1", "⌘K", "Escape". */
export function chordLabel(chord: KeyChord): string {
  const key = chord.key.length === 1 ? chord.key.toUpperCase() : chord.key
  if (chord.mod) return shortcutLabel(key)
  if (chord.alt) return `${isMac ? '⌥' : 'Alt+'}${key}`
  return key
}

/** All the keys of an action, as the help and the tooltips say them: "Ctrl+N or Alt+N". */
export function keysLabel(name: ActionName): string {
  return ACTIONS[name].keys.map(chordLabel).join(' or ')
}

/** The physical key for a chord, so Alt+N still matches on a Mac, where it types "˜". */
function codeFor(key: string): string | undefined {
  if (/^[a-z]$/.test(key)) return `Key${key.toUpperCase()}`
  if (/^[0-9]$/.test(key)) return `Digit${key}`
  if (key === ',') return 'Comma'
  return undefined
}

export interface KeyLike {
  readonly key: string
  readonly code: string
  readonly ctrlKey: boolean
  readonly metaKey: boolean
  readonly altKey: boolean
  readonly shiftKey: boolean
}

export function chordMatches(chord: KeyChord, event: KeyLike): boolean {
  const mod = isMac ? event.metaKey : event.ctrlKey
  const other = isMac ? event.ctrlKey : event.metaKey
  if (Boolean(chord.mod) !== mod || Boolean(chord.alt) !== event.altKey || other) return false
  // "?" needs Shift on most layouts, so Shift is not checked for punctuation and named keys.
  const isLetterOrDigit = /^[a-z0-9]$/.test(chord.key)
  if (isLetterOrDigit && event.shiftKey) return false
  if (event.key.toLowerCase() === chord.key.toLowerCase()) return true
  return chord.alt === true && codeFor(chord.key) === event.code
}

/** The action a key press means, given whether the user is typing in a field. */
export function actionForKey(event: KeyLike, isTyping: boolean): ActionName | undefined {
  return ACTION_NAMES.find((name) => {
    const spec: ActionSpec = ACTIONS[name]
    return (!isTyping || spec.whileTyping) && spec.keys.some((chord) => chordMatches(chord, event))
  })
}
