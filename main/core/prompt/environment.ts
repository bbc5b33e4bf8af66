import { SECTION_ORDER } from './sections.js'
import type { SectionContribution } from './sections.js'

/** Facts that hold for the whole session. Anything that changes (date, git state) is context. */
export function environmentSection(opts: {
  readonly projectDir: string
  readonly platform: string
}): SectionContribution {
  return {
    name: 'environment',
    order: SECTION_ORDER.environment,
    text: `Project folder: ${opts.projectDir}\nPlatform: ${opts.platform}`,
  }
}
