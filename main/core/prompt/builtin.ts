import { codeModeSection } from './code-mode.js'
import { environmentSection } from './environment.js'
import { identitySection } from './identity.js'
import {
  DEFAULT_INSTRUCTIONS_CAP_BYTES,
  projectInstructionsSection,
  readProjectInstructions,
} from './project-instructions.js'
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
  /**
   * The lean form for small windows: the same sections in a few lines each, and AGENTS.md cut at
   * LEAN_INSTRUCTIONS_CAP_BYTES, so that the fixed prompt leaves room for the conversation.
   */
  readonly lean?: boolean
  /** Code mode is on: the typed signatures of the tools a `run_code` program may call. */
  readonly codeSignatures?: readonly string[]
}

/** How much of AGENTS.md the lean prompt carries (the rest: "read the file"). */
export const LEAN_INSTRUCTIONS_CAP_BYTES = 4 * 1024

/**
 * A session's prompt sections with the built-ins in place: identity, tool guidance, the
 * project's AGENTS.md, safety, environment. Call it once when the session starts or is opened
 * and keep the result: AGENTS.md is read here and nowhere else, so every request of the session
 * gets the same bytes. Plugins add their own sections to the returned registry.
 */
export async function createPromptSections(opts: BuiltinPromptOptions): Promise<PromptSections> {
  const lean = opts.lean === true
  const sections = new PromptSections()
  sections.add(identitySection({ lean }))
  sections.add(
    toolGuidanceSection({
      toolNames: opts.toolNames,
      lean,
      ...(opts.outputCapBytes === undefined ? {} : { outputCapBytes: opts.outputCapBytes }),
    }),
  )
  const cap = lean ? LEAN_INSTRUCTIONS_CAP_BYTES : DEFAULT_INSTRUCTIONS_CAP_BYTES
  const project = projectInstructionsSection(
    await readProjectInstructions(opts.projectDir, cap),
    cap,
  )
  if (opts.codeSignatures) sections.add(codeModeSection(opts.codeSignatures))
  if (project) sections.add(project)
  sections.add(safetySection({ lean }))
  sections.add(environmentSection(opts))
  return sections
}
