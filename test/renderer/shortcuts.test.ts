import { describe, expect, it } from 'vitest'
import { helpRows } from '../../renderer/src/features/help'
import { createActionRegistry } from '../../renderer/src/state/actions'
import {
  ACTION_NAMES,
  ACTIONS,
  actionForKey,
  chordLabel,
  keysLabel,
} from '../../renderer/src/state/shortcuts'
import type { KeyChord, KeyLike } from '../../renderer/src/state/shortcuts'

const isMac = /Mac|iPhone|iPad/.test(globalThis.navigator.userAgent)

/** The key press a chord stands for, as the browser reports it. */
function pressOf(chord: KeyChord): KeyLike {
  return {
    key: chord.key,
    code: '',
    ctrlKey: chord.mod === true && !isMac,
    metaKey: chord.mod === true && isMac,
    altKey: chord.alt === true,
    shiftKey: chord.key === '?',
  }
}

describe('the action registry', () => {
  it('gives no key combination two actions', () => {
    const seen = new Map<string, string>()
    for (const name of ACTION_NAMES) {
      for (const chord of ACTIONS[name].keys) {
        const label = chordLabel(chord)
        expect(seen.get(label), `${label} is bound to ${seen.get(label)} and ${name}`).toBe(
          undefined,
        )
        seen.set(label, name)
      }
    }
  })

  it('maps every chord back to its own action', () => {
    for (const name of ACTION_NAMES) {
      for (const chord of ACTIONS[name].keys) {
        expect(actionForKey(pressOf(chord), false)).toBe(name)
      }
    }
  })

  it('lists every action in the help, with its keys', () => {
    const rows = helpRows()
    for (const name of ACTION_NAMES) {
      expect(rows).toContainEqual({ keys: keysLabel(name), what: ACTIONS[name].what })
    }
    expect(new Set(rows.map((row) => row.keys)).size).toBe(rows.length)
  })

  it('has the keys the issue asks for', () => {
    const label = (name: keyof typeof ACTIONS) => keysLabel(name)
    expect(label('focus-composer')).toBe('/')
    expect(label('show-timeline')).toMatch(/1$/)
    expect(label('show-checkpoints')).toMatch(/2$/)
    expect(label('open-settings')).toMatch(/,$/)
    for (const name of [
      'fork-here',
      'regenerate',
      'edit-last-message',
      'open-model-picker',
    ] as const) {
      expect(ACTIONS[name].keys[0].alt).toBe(true)
    }
  })

  it('leaves a bare "/" or "?" to a field being typed in, but not Ctrl+K', () => {
    expect(actionForKey(pressOf({ key: '/' }), true)).toBe(undefined)
    expect(actionForKey(pressOf({ key: '?' }), true)).toBe(undefined)
    expect(actionForKey(pressOf({ key: 'k', mod: true }), true)).toBe('search')
  })

  it('matches Alt+letter by the physical key, as a Mac types "˜" for Alt+N', () => {
    const press = { ...pressOf({ key: 'n', alt: true }), key: '˜', code: 'KeyN' }
    expect(actionForKey(press, false)).toBe('new-session')
    expect(actionForKey({ ...press, shiftKey: true }, false)).toBe(undefined)
  })
})

describe('createActionRegistry', () => {
  it('runs the newest handler, falls back when it declines, and forgets removed ones', () => {
    const registry = createActionRegistry()
    const calls: string[] = []
    expect(registry.run('regenerate')).toBe(false)
    const removeOld = registry.register('regenerate', () => calls.push('old'))
    const removeNew = registry.register('regenerate', () => {
      calls.push('new')
      return false
    })
    expect(registry.run('regenerate')).toBe(true)
    expect(calls).toEqual(['new', 'old'])
    removeOld()
    expect(registry.run('regenerate')).toBe(false)
    removeNew()
    expect(registry.isHandled('regenerate')).toBe(false)
  })
})
