import { environmentSection } from './environment.js'
import { identitySection } from './identity.js'
import { projectInstructionsSection, readProjectInstructions } from './project-instructions.js'
import { safetySection } from './safety.js'
import { PromptSections } from './sections.js'
import { toolGuidanceSection } from './tool-guidance.js'

export interface BuiltinPromptOptions {
  /** The project's real path (the session's `projectDir`). */
  readonly projectDir: string
  readonly platform: string
  readonly toolNames: readonly string[]
  /** The tool output cap the pipeline enforces, for the guidance text. */
  readonly outputCapBytes?: number
}

/**
 * A session's prompt sections with the built-ins in place: identity, tool guidance, the
 * project's AGENTS.md, safety, environment. Call it once when the session starts or is opened
 * and keep the result: AGENTS.md is read here and nowhere else, so every request of the session
 * gets the same bytes. Plugins add their own sections to the returned registry.
 */
export async function createPromptSections(opts: BuiltinPromptOptions): Promise<PromptSections> {
  const sections = new PromptSections()
  sections.add(identitySection())
  sections.add(
    toolGuidanceSection({
      toolNames: opts.toolNames,
      ...(opts.outputCapBytes === undefined ? {} : { outputCapBytes: opts.outputCapBytes }),
    }),
  )
  const project = projectInstructionsSection(await readProjectInstructions(opts.projectDir))
  if (project) sections.add(project)
  sections.add(safetySection())
  sections.add(environmentSection(opts))
  return sections
}
