import { describe, expect, it } from 'vitest'
import type { ProbeReport } from '../../protocol/probe-report'
import { OLLAMA_CUT_REPORT, OLLAMA_PROFILE } from '../fixtures/probe-samples'
import {
  capabilityRows,
  hasWarnings,
  sinceText,
  tookText,
} from '../../renderer/src/features/settings/capability-words'
import {
  badgeServer,
  profileFacts,
  profileQuirks,
  profileServer,
} from '../../renderer/src/features/chat/profile-words'

/** What `bridle probe` found on Ollama 0.12 with its 4,096 default (test/cli/probe.test.ts). */
const ollamaCut = OLLAMA_CUT_REPORT

const refused: ProbeReport = {
  ...ollamaCut,
  kind: 'llama.cpp',
  serverVersion: 'b4500',
  api: 'openai',
  toolCalls: {
    streamed: 'refused',
    nonStreamed: 'skipped',
    asText: 'text',
    textFormat: 'hermes',
    chosen: 'text',
    serverSaid: 'tools param requires --jinja flag',
  },
  reasoning: 'think-tags',
  streamOptions: 'accepted',
  context: {
    window: 8192,
    windowSource: 'server',
    verdict: 'fits',
    testedWith: 6000,
    reported: 5990,
  },
  notes: ['a note'],
}

describe('capability card words', () => {
  it('words the rows as the CLI does, and marks a silent cut as a warning', () => {
    const rows = capabilityRows(ollamaCut, 'local')
    expect(rows.map((r) => r.label)).toEqual(['Tool calls', 'Reasoning', 'Context', 'Bridle uses'])
    expect(rows[1]?.text).toBe("in Ollama's thinking field")
    const context = rows.find((r) => r.label === 'Context')
    expect(context?.text).toContain('it honours about 4,096 tokens')
    // The hint names the endpoint as it is in config.json.
    expect(context?.text).toContain('endpoints.local.models["qwen3:8b"].contextWindow')
    expect(context?.warning).toBe('prompts are cut silently')
    expect(rows.filter((r) => r.warning !== undefined)).toHaveLength(1)
    expect(hasWarnings(ollamaCut)).toBe(true)
  })

  it('marks refused tools as a warning, and nothing else on a window that fits', () => {
    const rows = capabilityRows(refused, 'lab')
    expect(rows.find((r) => r.label === 'Tool calls')).toMatchObject({
      warning: 'the server refuses tools',
    })
    expect(rows.find((r) => r.label === 'Context')).not.toHaveProperty('warning')
    expect(rows.at(-1)).toEqual({ label: 'Note', text: 'a note' })
    expect(hasWarnings(refused)).toBe(true)
    const plain: ProbeReport = {
      ...refused,
      toolCalls: { ...ollamaCut.toolCalls },
    }
    expect(hasWarnings(plain)).toBe(false)
    expect(capabilityRows(plain, 'lab').every((r) => r.warning === undefined)).toBe(true)
  })

  it('says when the test ran and how long it took', () => {
    const now = 10 * 24 * 3600_000
    expect(sinceText(now - 10_000, now)).toBe('just now')
    expect(sinceText(now + 5_000, now)).toBe('just now')
    expect(sinceText(now - 5 * 60_000, now)).toBe('5 min ago')
    expect(sinceText(now - 3 * 3600_000, now)).toBe('3 h ago')
    expect(sinceText(now - 26 * 3600_000, now)).toBe('yesterday')
    expect(sinceText(now - 4 * 24 * 3600_000, now)).toBe('4 days ago')
    expect(sinceText(0, 90 * 24 * 3600_000)).toMatch(/^on 1 Jan 1970$/)
    expect(tookText(78)).toBe('78 ms')
    expect(tookText(4210)).toBe('4.2 s')
    expect(tookText(125_000)).toBe('2 min 5 s')
  })
})

const profile = OLLAMA_PROFILE

describe('model badge words', () => {
  it('shows only what is unusual', () => {
    expect(profileServer(profile)).toBe('Ollama 0.12.3')
    expect(profileQuirks(profile)).toEqual([])
    expect(
      profileQuirks({
        ...profile,
        toolCalls: 'text',
        replayReasoning: true,
        windowSource: 'learned',
      }),
    ).toEqual(['tools as text', 'reasoning sent back', 'window learnt from a cut'])
    expect(profileQuirks({ ...profile, toolCalls: 'native-nonstream' })).toEqual([
      'tools unstreamed',
    ])
    const unknown = { ...profile, serverKind: 'unknown', serverVersion: undefined }
    expect(profileServer(unknown)).toBe('an OpenAI-compatible server')
    expect(badgeServer(unknown)).toBe('OpenAI-compatible')
    expect(badgeServer(profile)).toBe('Ollama 0.12.3')
  })

  it('lists the facts of the profile, token counts only for the OpenAI API', () => {
    const facts = profileFacts(profile)
    expect(facts.map((f) => f.label)).toEqual([
      'Model',
      'Server',
      'API',
      'Tool calls',
      'Reasoning',
      'Window',
    ])
    expect(facts.find((f) => f.label === 'Server')?.text).toBe('Ollama 0.12.3, endpoint local')
    expect(facts.find((f) => f.label === 'Window')?.text).toBe(
      "4,096 tokens (Ollama's default, assumed)",
    )
    const openai = profileFacts({
      ...profile,
      api: 'openai',
      streamUsage: false,
      toolCalls: 'text',
      contextWindow: undefined,
      windowSource: undefined,
    })
    expect(openai.find((f) => f.label === 'Token counts')?.text).toContain('refuses stream_options')
    expect(openai.find((f) => f.label === 'Tool calls')?.text).toContain("from the model's text")
    expect(openai.find((f) => f.label === 'Window')?.text).toBe('unknown: the server does not say')
  })
})
