import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import type { McpServerView } from '../../protocol/mcp'
import { mcpNoticeLead } from '../../renderer/src/features/chat/plain-words'
import { buildItems } from '../../renderer/src/features/chat/projection'
import {
  requestMcpSection,
  takeMcpSectionRequest,
} from '../../renderer/src/features/settings/mcp/section-request'
import { mcpStateText } from '../../renderer/src/features/settings/mcp/words'
import { asEvent } from './event-fixture'

function toolItems(events: readonly EventDto[]) {
  return buildItems(events).flatMap((item) => (item.kind === 'tool' ? [item.call] : []))
}

describe("the chat's MCP tool calls", () => {
  const at = (seq: number, type: string, data: Record<string, unknown>) =>
    asEvent({ seq, type, v: 1, turn: 1, step: 1, at: seq * 100, data })
  const message = (name: string) =>
    at(1, 'assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'c1', name, args: '{"text":"hi"}' }],
      finish: 'tool-calls',
    })

  it("names the server and its own name for the tool, from the tool/call event's mcp field", () => {
    const [call] = toolItems([
      at(0, 'turn/start', {}),
      message('mcp__fixture__echo'),
      at(2, 'tool/call', {
        callId: 'c1',
        name: 'mcp__fixture__echo',
        args: { text: 'hi' },
        mcp: { server: 'fixture', tool: 'echo' },
      }),
    ])
    expect(call).toMatchObject({ name: 'mcp__fixture__echo', status: 'running' })
    expect(call?.mcp).toEqual({ server: 'fixture', tool: 'echo' })
  })

  it('leaves built-in tools without a server', () => {
    const [call] = toolItems([
      at(0, 'turn/start', {}),
      message('read'),
      at(2, 'tool/call', { callId: 'c1', name: 'read', args: { path: 'a' } }),
    ])
    expect(call?.name).toBe('read')
    expect(call?.mcp).toBeUndefined()
  })
})

describe('MCP words', () => {
  it("leads the MCP notices with a sentence, and no other notice's", () => {
    expect(mcpNoticeLead('MCP_SERVER_FAILED')).toBe('Going on without an MCP server.')
    expect(mcpNoticeLead('MCP_PROJECT_UNTRUSTED')).toMatch(/trust/)
    expect(mcpNoticeLead('SANDBOX_OFF')).toBeUndefined()
  })

  const server = (over: Partial<McpServerView>): McpServerView => ({
    name: 'x',
    scope: 'user',
    transport: 'stdio',
    target: 'x',
    state: 'stopped',
    tools: [],
    stderr: '',
    ...over,
  })

  it("gives the server's reason as a sentence, else what its state means", () => {
    expect(mcpStateText(server({ state: 'failed', reason: 'could not start: no token' }))).toBe(
      'Could not start: no token.',
    )
    expect(mcpStateText(server({ state: 'failed', reason: 'It stopped.' }))).toBe('It stopped.')
    expect(mcpStateText(server({ state: 'stopped' }))).toMatch(/when a session first needs/)
    expect(mcpStateText(server({ state: 'disabled', reason: '' }))).toMatch(/^Turned off/)
  })

  it('hands the request to open at the MCP section to one taker', () => {
    expect(takeMcpSectionRequest()).toBe(false)
    requestMcpSection()
    expect(takeMcpSectionRequest()).toBe(true)
    expect(takeMcpSectionRequest()).toBe(false)
  })
})
