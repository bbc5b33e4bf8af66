import { describe, expect, it } from 'vitest'
import { createPromptSections } from '../../../main/core/prompt/builtin.js'
import { PromptSections, SECTION_ORDER } from '../../../main/core/prompt/sections.js'
import { toolGuidanceSection } from '../../../main/core/prompt/tool-guidance.js'

describe('prompt sections', () => {
  it('assembles by order, then by name, whatever the order they were added in', () => {
    const sections = new PromptSections()
    sections.add({ name: 'zeta', order: 10, text: 'z' })
    sections.add({ name: 'late', order: 900, text: 'l' })
    sections.add({ name: 'alpha', order: 10, text: 'a' })
    sections.add({ name: 'first', order: -1, text: 'f' })
    expect(sections.assemble()).toEqual([
      { name: 'first', text: 'f' },
      { name: 'alpha', text: 'a' },
      { name: 'zeta', text: 'z' },
      { name: 'late', text: 'l' },
    ])
  })

  it('removes a section through its disposer, only once, and refuses a second of one name', () => {
    const sections = new PromptSections()
    const dispose = sections.add({ name: 'plugin', order: 250, text: 'one' })
    expect(() => sections.add({ name: 'plugin', order: 1, text: 'two' })).toThrow(
      'prompt section plugin is already registered',
    )
    dispose()
    const again = sections.add({ name: 'plugin', order: 250, text: 'again' })
    dispose()
    expect(sections.assemble()).toEqual([{ name: 'plugin', text: 'again' }])
    again()
    expect(sections.assemble()).toEqual([])
  })

  it('puts the built-ins in their order and a plugin between them', async () => {
    const sections = await createPromptSections({
      projectDir: '/nonexistent-project-folder',
      platform: 'linux',
      toolNames: ['read', 'edit', 'grep', 'glob', 'bash', 'read_output'],
    })
    sections.add({ name: 'review', order: SECTION_ORDER.safety + 50, text: 'Review rules.' })
    expect(sections.assemble().map((s) => s.name)).toEqual([
      'identity',
      'tools',
      'safety',
      'review',
      'environment',
    ])
    const text = sections
      .assemble()
      .map((s) => s.text)
      .join('\n\n')
    expect(text).toContain('Project folder: /nonexistent-project-folder\nPlatform: linux')
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/)
  })

  it('gives tool advice only for the tools offered', () => {
    const all = toolGuidanceSection({
      toolNames: ['read', 'edit', 'grep', 'glob', 'bash', 'read_output'],
    }).text
    expect(all).toContain('Read a file before you edit it')
    expect(all).toContain('prefer grep (contents) and glob (file names) over bash')
    expect(all).toContain('Outputs over 50 KB are cut')
    expect(all).toContain('TOOL_OUTCOME_UNKNOWN')
    const readOnly = toolGuidanceSection({ toolNames: ['read', 'grep'] }).text
    expect(readOnly).not.toContain('edit')
    expect(readOnly).not.toContain('bash')
    expect(toolGuidanceSection({ toolNames: [] }).text).toContain('You have no tools')
  })
})
