import type { Disposer } from '../kernel/index.js'
import type { PromptSection } from '../loop/agent.js'

/** One contributed section: its text is fixed when it is added, so the prompt stays byte-stable. */
export interface SectionContribution {
  readonly name: string
  /** Lower comes first; equal orders fall back to the name, so the result never depends on timing. */
  readonly order: number
  readonly text: string
}

/** Where the built-in sections sit; plugins pick orders between or after them. */
export const SECTION_ORDER = {
  identity: 100,
  tools: 200,
  project: 300,
  safety: 400,
  environment: 500,
} as const

/**
 * The system prompt's sections, contributed by plugins and the built-ins. `assemble()` is a pure
 * function of what is registered: the same contributions give the same bytes, and nothing here
 * reads the clock, the disk or git. A section changes only when a contributor re-adds it, which
 * the loop logs as a new `request/header`.
 */
export class PromptSections {
  private readonly entries = new Map<string, SectionContribution>()

  /**
   * Adds a section and returns its disposer. A second section with a name already present is a
   * bug (two plugins fighting over one slot) and throws.
   */
  add(section: SectionContribution): Disposer {
    if (section.name === '') throw new Error('a prompt section needs a name')
    if (!Number.isFinite(section.order))
      throw new Error(`prompt section ${section.name}: order must be a finite number`)
    if (this.entries.has(section.name))
      throw new Error(`prompt section ${section.name} is already registered`)
    const entry = { ...section }
    this.entries.set(section.name, entry)
    return () => {
      // Only this registration: a later one under the same name is not ours to remove.
      if (this.entries.get(section.name) === entry) this.entries.delete(section.name)
    }
  }

  /** The sections sorted by (order, name); empty texts are left out. */
  assemble(): PromptSection[] {
    return [...this.entries.values()]
      .filter((section) => section.text !== '')
      .sort((a, b) => a.order - b.order || compareNames(a.name, b.name))
      .map(({ name, text }) => ({ name, text }))
  }
}

/** Code-unit order, not locale order: the result must not change with the machine's locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
