import { TOOL_OUTCOME_UNKNOWN } from '../../../protocol/events.js'
import { DEFAULT_OUTPUT_CAP_BYTES } from '../tools/spill.js'
import { SECTION_ORDER } from './sections.js'
import type { SectionContribution } from './sections.js'

/** One piece of advice, shown only when every tool it names is offered. */
interface Advice {
  readonly needs: readonly string[]
  readonly text: string
}

function adviceFor(outputCapKb: number): readonly Advice[] {
  return [
    { needs: [], text: 'Paths are relative to the project folder.' },
    {
      needs: ['read', 'edit'],
      text: 'Read a file before you edit it, and read it again if it may have changed since.',
    },
    {
      needs: ['edit'],
      text: 'edit replaces exact text: copy oldText character for character from a fresh read (whitespace and line breaks included, without line numbers), with enough lines around it to be unique.',
    },
    {
      needs: ['grep', 'glob', 'bash'],
      text: 'To search, prefer grep (contents) and glob (file names) over bash: they are faster, stay inside the project and need no approval.',
    },
    {
      needs: ['bash'],
      text: 'bash runs in the project folder with stdin closed; pass flags that avoid prompts and pagers.',
    },
    {
      needs: ['read_output'],
      text: `Outputs over ${outputCapKb} KB are cut; the result names a ref, and read_output with that ref reads the rest.`,
    },
    {
      needs: ['task'],
      text: 'task hands a self-contained job to a subagent that sees only its prompt: use it for broad searches or independent changes whose steps you do not need to see, say everything it needs and what its answer must hold, and start several at once when they do not depend on each other.',
    },
    {
      needs: [],
      text: `A result with ${TOOL_OUTCOME_UNKNOWN} means the call may or may not have run (it was interrupted): check the current state (read the file, list, git status) before you retry it.`,
    },
  ]
}

/**
 * How to use the offered tools well. The text depends only on the tool names, so it changes
 * only when the tool set does (and the header is logged again then anyway).
 */
export function toolGuidanceSection(opts: {
  readonly toolNames: readonly string[]
  readonly outputCapBytes?: number
  /** A few lines only (small windows). */
  readonly lean?: boolean
}): SectionContribution {
  const base = { name: 'tools', order: SECTION_ORDER.tools }
  if (opts.toolNames.length === 0)
    return {
      ...base,
      text: 'You have no tools in this session; answer from the conversation alone.',
    }
  if (opts.lean === true) {
    return {
      ...base,
      text: `Paths are relative to the project folder. Read a file before you edit it. A result with ${TOOL_OUTCOME_UNKNOWN} may or may not have run: check before you retry.`,
    }
  }
  const offered = new Set(opts.toolNames)
  const capKb = Math.round((opts.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES) / 1024)
  const advice = adviceFor(capKb)
    .filter((item) => item.needs.every((name) => offered.has(name)))
    .map((item) => `- ${item.text}`)
  return {
    ...base,
    text: [`Tools: ${opts.toolNames.join(', ')}.`, ...advice].join('\n'),
  }
}
