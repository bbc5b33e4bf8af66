/**
 * Which folder each command runs in. A `cd` may fail, and a failed `cd` followed by `;` runs the
 * next command where the line started: `cd build; rm -rf *` empties the project when `build` is
 * missing. So the walker tracks, for each statement, the folders the shell may be in after it
 * succeeded and after it failed; `&&` continues from the first, `||` from the second, `;` from
 * both.
 */
import { posix } from 'node:path'
import type { Folder, Word } from './types.js'

/** The folders the shell may be in; the first is where every `cd` succeeded. */
export type Place = readonly Folder[]

export interface Outcome {
  readonly ok: Place
  readonly fail: Place
}

/** More possibilities than this collapse into "unknown": the judge then asks. */
export const MAX_FOLDERS = 8

export const both = (place: Place): Outcome => ({ ok: place, fail: place })

/** A statement after which nothing runs (`exit`, `return`). */
export const NEVER: Outcome = { ok: [], fail: [] }

export function union(...places: Place[]): Place {
  const out: Folder[] = []
  for (const place of places) {
    for (const folder of place) if (!out.includes(folder)) out.push(folder)
  }
  if (out.length <= MAX_FOLDERS) return out
  return [...out.slice(0, MAX_FOLDERS - 1), undefined]
}

export const anyOf = (...outcomes: Outcome[]): Outcome => ({
  ok: union(...outcomes.map((o) => o.ok)),
  fail: union(...outcomes.map((o) => o.fail)),
})

/** Where `cd`/`pushd`/`popd` with these operands leads from each folder of `place`. */
export function afterChangeDir(
  program: string,
  operands: readonly Word[],
  place: Place,
  home: string,
): Place {
  const target = operands[0]
  if (program === 'popd') return [undefined]
  if (target === undefined) return program === 'pushd' ? [undefined] : [home]
  if (!target.literal || target.value === '-' || /^[+-]\d+$/.test(target.value)) return [undefined]
  return union(place.map((folder) => resolveIn(folder, target.value)))
}

/** An absolute path, or undefined when the path is relative to an unknown folder. */
export function resolveIn(folder: Folder, path: string): Folder {
  if (posix.isAbsolute(path)) return posix.resolve(path)
  return folder === undefined ? undefined : posix.resolve(folder, path)
}
