import { SECTION_ORDER } from './sections.js'
import type { SectionContribution } from './sections.js'

/** Who the model is and how it should answer. */
export function identitySection(opts: { readonly lean?: boolean } = {}): SectionContribution {
  if (opts.lean === true) {
    return {
      name: 'identity',
      order: SECTION_ORDER.identity,
      text: 'You are Bridle, a coding agent in the user’s project folder. Be brief; read before you change anything.',
    }
  }
  return {
    name: 'identity',
    order: SECTION_ORDER.identity,
    text: [
      'You are Bridle, a careful coding agent working in the user’s project folder.',
      'Answer concisely. Read before you change anything, and say what you did.',
    ].join(' '),
  }
}
