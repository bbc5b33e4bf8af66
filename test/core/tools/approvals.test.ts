import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import type { ApprovalChannel } from '../../../main/core/tools/approvals.js'
import { defineTool } from '../../../main/core/tools/types.js'

/** A command tool whose approval key is the first two words, or none for compound commands. */
const shell = defineTool({
  name: 'bash',
  description: 'runs a command',
  kind: 'execute',
  schema: z.object({ command: z.string() }),
  approvalKey: ({ command }) =>
    /[;&|`$<>\n]/.test(command) ? undefined : command.split(/\s+/).slice(0, 2).join(' '),
  run: () => Promise.resolve({ output: '' }),
})

const never = new AbortController().signal

async function verdict(policy: ApprovalPolicy, command: string) {
  const outcome = await policy.decide(shell, { command }, 'c1', never)
  return outcome.allowed ? `allowed by ${outcome.how}` : outcome.code
}

describe('approval rules', () => {
  it('a remembered prefix covers a command on a word boundary only', async () => {
    const policy = new ApprovalPolicy('ask', [
      { tool: 'bash', prefix: 'npm test', effect: 'allow' },
    ])
    expect(await verdict(policy, 'npm test')).toBe('allowed by rule')
    expect(await verdict(policy, 'npm test -- -u')).toBe('allowed by rule')
    expect(await verdict(policy, 'npm testx')).toBe('NO_APPROVAL_CHANNEL')
    expect(await verdict(policy, 'npm run build')).toBe('NO_APPROVAL_CHANNEL')
  })

  it('no standing rule covers a compound command, and "always" on one remembers nothing', async () => {
    const asked: string[] = []
    const channel: ApprovalChannel = (request) => {
      asked.push(request.description)
      return Promise.resolve({ decision: 'allow', remember: true })
    }
    const remembered: unknown[] = []
    const policy = new ApprovalPolicy(
      'ask',
      [{ tool: 'bash', prefix: 'npm test', effect: 'allow' }],
      channel,
      (rule) => remembered.push(rule),
    )
    expect(await verdict(policy, 'npm test && rm -rf ~')).toBe('allowed by user')
    expect(await verdict(policy, 'npm test && rm -rf ~')).toBe('allowed by user')
    expect(asked).toEqual([
      'bash {"command":"npm test && rm -rf ~"}',
      'bash {"command":"npm test && rm -rf ~"}',
    ])
    expect(remembered).toEqual([])
    expect(await verdict(policy, 'git status')).toBe('allowed by user')
    expect(remembered).toEqual([{ tool: 'bash', prefix: 'git status', effect: 'allow' }])
    expect(await verdict(policy, 'git status --short')).toBe('allowed by rule')
  })

  it('deny rules win over allow rules', async () => {
    const both = new ApprovalPolicy('full-auto', [
      { tool: 'bash', prefix: 'git', effect: 'allow' },
      { tool: 'bash', prefix: 'git push', effect: 'deny' },
    ])
    expect(await verdict(both, 'git push origin main')).toBe('POLICY_DENIED')
  })
})
