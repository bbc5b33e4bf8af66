import type { SectionContribution } from './sections.js'
import { SECTION_ORDER } from './sections.js'

/**
 * Code mode, explained to the model: what `run_code` is for, how a program calls the tools, and
 * their typed signatures (`tools/code/signatures.ts`). Added only when code mode is on; fixed
 * when the session's prompt is built, like every section.
 */
export function codeModeSection(signatures: readonly string[]): SectionContribution {
  return {
    name: 'code-mode',
    // Right after the tool guidance: it is about the same tools.
    order: SECTION_ORDER.tools + 50,
    text: [
      'Code mode: besides calling tools one at a time, you can call `run_code` with one JavaScript program (the body of an async function) that calls several tools and combines their outputs, so the intermediate outputs need not pass through the conversation.',
      '- In the program each tool is `await tools.<name>(args)`; it returns the output as text, or throws an Error whose message starts with the failure code (catch it to go on). Each call is approved and logged like one of yours.',
      '- `console.log(...)` lines and the returned value (JSON unless it is a string) are the result. There is no require, process, fetch, file system or network except through the tools.',
      'The tools in a program:',
      '```ts',
      ...signatures,
      '```',
    ].join('\n'),
  }
}
