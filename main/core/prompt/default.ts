import type { PromptSection } from '../loop/agent.js'

/**
 * The system prompt's stable sections: the same bytes for every request of a session, so local
 * servers keep their KV-cache prefix. Nothing volatile (date, git state) goes here.
 */
export function defaultPrompt(opts: {
  projectDir: string
  platform: string
  toolNames: readonly string[]
}): PromptSection[] {
  return [
    {
      name: 'identity',
      text:
        'You are Bridle, a careful coding agent working in the user’s project folder. ' +
        'Answer concisely. Read before you change anything, and say what you did.',
    },
    {
      name: 'tools',
      text:
        opts.toolNames.length > 0
          ? `You can call these tools: ${opts.toolNames.join(', ')}. Paths are relative to the project folder.`
          : 'You have no tools in this session; answer from the conversation alone.',
    },
    { name: 'environment', text: `Project folder: ${opts.projectDir}\nPlatform: ${opts.platform}` },
  ]
}
