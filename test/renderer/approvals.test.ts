import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { methods } from '../../protocol/contract'
import type { ApprovalRequest, BridleApi } from '../../protocol/contract'
import { ApprovalPrompt } from '../../renderer/src/features/chat/approval-prompt'
import {
  codeSpans,
  decidedBy,
  decisionNote,
  decisionText,
  grantChoices,
  inBackticks,
  respondParams,
} from '../../renderer/src/state/approval-words'

const request = (extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  sessionId: 's1',
  callId: 'c1',
  turn: 1,
  step: 1,
  tool: 'bash',
  description: 'npm test -- -u',
  args: { command: 'npm test -- -u' },
  ...extra,
})

/** The prompt's first render, as HTML: what the user sees before clicking anything. */
const rendered = (req: ApprovalRequest): string =>
  renderToStaticMarkup(createElement(ApprovalPrompt, { api: {} as BridleApi, request: req }))

describe('decisionText: who decided, in words', () => {
  it('names the user, the mode and the rule that allowed a call', () => {
    expect(decisionText({ decision: 'allow', by: 'user' })).toBe('allowed once by you')
    // A log written before automatic decisions were logged: the user answered.
    expect(decisionText({ decision: 'allow' })).toBe('allowed once by you')
    expect(
      decisionText({ decision: 'allow', by: 'user', remember: true, grant: 'npm test *' }),
    ).toBe('allowed by you, and remembered: npm test *')
    expect(decisionText({ decision: 'allow', by: 'mode', detail: 'full-auto' })).toBe(
      'allowed by full-auto',
    )
    expect(
      decisionText({ decision: 'allow', by: 'mode', detail: 'reads are always allowed' }),
    ).toBe('allowed: reads are always allowed')
    expect(decisionText({ decision: 'allow', by: 'rule', detail: 'bash: npm test *' })).toBe(
      'allowed by rule bash: npm test *',
    )
    // A rule for a line of several commands: its patterns on one line.
    expect(decisionText({ decision: 'allow', by: 'rule', detail: 'bash: ls src\nwc -l a' })).toBe(
      'allowed by rule bash: ls src · wc -l a',
    )
    // Several rules, as the core joins them; and patterns quoted for a card.
    expect(
      decisionText(
        { decision: 'allow', by: 'rule', detail: 'bash: ls *; bash: wc -l *' },
        inBackticks,
      ),
    ).toBe('allowed by rule bash: `ls *`; bash: `wc -l *`')
  })

  it('says why a call was refused, and by whom', () => {
    expect(decisionText({ decision: 'deny', by: 'user', reason: ' not now ' })).toBe(
      'denied by you: “not now”',
    )
    expect(decisionText({ decision: 'deny', by: 'user' })).toBe('denied by you')
    expect(decisionText({ decision: 'deny', by: 'rule', detail: 'bash: git push *' })).toBe(
      'refused by rule bash: git push *',
    )
    expect(
      decisionText({ decision: 'deny', by: 'assessment', reason: '`rm -rf /` deletes everything' }),
    ).toBe('refused: `rm -rf /` deletes everything')
    expect(
      decisionText({
        decision: 'deny',
        by: 'assessment',
        detail: 'full-auto',
        reason: 'it writes a git hook',
      }),
    ).toBe('refused in full-auto: it writes a git hook')
    expect(decisionText({ decision: 'deny', by: 'guard', reason: 'outside the project' })).toBe(
      'refused: outside the project',
    )
    expect(
      decisionText({
        decision: 'deny',
        by: 'no-channel',
        reason: 'nobody can be asked in this session',
      }),
    ).toBe('not run: nobody can be asked in this session')
    expect(decisionText({ decision: 'cancelled', by: 'user' })).toBe(
      'not answered: the turn was stopped while it waited',
    )
  })

  it('reads `by` defensively', () => {
    expect(decidedBy('rule')).toBe('rule')
    expect(decidedBy('someone-new')).toBeUndefined()
    expect(decidedBy(3)).toBeUndefined()
  })
})

describe('decisionNote: the line on a card', () => {
  it('stays quiet for the allows the user expects', () => {
    expect(decisionNote(undefined)).toBeUndefined()
    expect(decisionNote({ decision: 'allow', by: 'mode', detail: 'full-auto' })).toBeUndefined()
    expect(decisionNote({ decision: 'allow', by: 'user' })).toBeUndefined()
  })

  it('says who refused, which rule allowed, what was kept and what was warned of', () => {
    expect(decisionNote({ decision: 'deny', by: 'guard', reason: 'a protected path' })).toBe(
      'Refused: a protected path',
    )
    // No full stop after a pattern: `*.` would read as part of it.
    expect(decisionNote({ decision: 'allow', by: 'rule', detail: 'bash: npm test *' })).toBe(
      'Allowed by rule bash: `npm test *`',
    )
    expect(decisionNote({ decision: 'allow', remember: true, approvalKey: 'src/' })).toBe(
      'Allowed by you, and remembered: `src/`',
    )
    expect(
      decisionNote({ decision: 'allow', remember: true, grant: 'ls *', approvalKey: 'x' }),
    ).toBe('Allowed by you, and remembered: `ls *`')
    expect(decisionNote({ decision: 'allow', by: 'user', warnings: ['it asks for network'] })).toBe(
      'Allowed once by you',
    )
  })
})

describe('grant choices and the answer sent', () => {
  it('lists what "always allow" may keep, the suggested first, the exact command last', () => {
    expect(grantChoices(request())).toEqual([])
    expect(grantChoices(request({ grantOptions: ['npm test *', 'npm test -- -u'] }))).toEqual([
      { option: 'npm test *', lines: ['npm test *'], label: 'suggested' },
      { option: 'npm test -- -u', lines: ['npm test -- -u'], label: 'only this exact command' },
    ])
    expect(grantChoices(request({ grantOptions: ['ls *\nwc *'] }))).toEqual([
      { option: 'ls *\nwc *', lines: ['ls *', 'wc *'], label: 'suggested' },
    ])
  })

  it('sends the grant picked with remember, and only a grant the request offered', () => {
    const req = request({ grantOptions: ['npm test *', 'npm test -- -u'] })
    const always = respondParams(req, { decision: 'allow', grant: 'npm test -- -u' })
    expect(always).toEqual({
      sessionId: 's1',
      callId: 'c1',
      decision: 'allow',
      remember: true,
      grant: 'npm test -- -u',
    })
    expect(respondParams(req, { decision: 'allow' })).toEqual({
      sessionId: 's1',
      callId: 'c1',
      decision: 'allow',
      remember: false,
    })
    // Never wider than offered: an unknown grant is "once".
    expect(respondParams(req, { decision: 'allow', grant: 'npm *' })).toMatchObject({
      remember: false,
    })
    expect(respondParams(request(), { decision: 'allow', grant: 'npm test *' })).not.toHaveProperty(
      'grant',
    )
    expect(respondParams(req, { decision: 'deny', reason: '  use yarn ' })).toEqual({
      sessionId: 's1',
      callId: 'c1',
      decision: 'deny',
      reason: 'use yarn',
    })
    expect(respondParams(req, { decision: 'deny', reason: ' ' })).not.toHaveProperty('reason')
    // What is sent passes the contract's own schema.
    const schema = methods['approval/respond'].params
    expect(schema.safeParse(always).success).toBe(true)
    expect(schema.safeParse(respondParams(req, { decision: 'deny', reason: 'x' })).success).toBe(
      true,
    )
  })

  it('splits warnings at the commands they quote', () => {
    expect(codeSpans('`git reset --hard` throws away changes')).toEqual([
      { text: 'git reset --hard', isCode: true },
      { text: ' throws away changes', isCode: false },
    ])
    expect(codeSpans('no code here')).toEqual([{ text: 'no code here', isCode: false }])
  })
})

describe('ApprovalPrompt (first render)', () => {
  it('shows the warnings first, in plain words with the command in code', () => {
    const html = rendered(
      request({
        description: 'git reset --hard',
        warnings: ['`git reset --hard` throws away uncommitted changes'],
      }),
    )
    expect(html).toContain('class="approval-warnings"')
    expect(html).toContain('<code>git reset --hard</code> throws away uncommitted changes.')
    expect(html.indexOf('approval-warnings')).toBeLessThan(html.indexOf('Allow once'))
  })

  it('offers no "always" without grant options', () => {
    const html = rendered(request({ approvalKey: 'npm test *' }))
    expect(html).toContain('Allow once')
    expect(html).not.toContain('Always allow')
  })

  it('puts a single pattern in the button, and a choice of patterns above it', () => {
    const single = rendered(request({ grantOptions: ['notes.md'] }))
    expect(single).toContain('Always allow <code>notes.md</code>')
    expect(single).not.toContain('type="radio"')

    const choice = rendered(request({ grantOptions: ['npm test *', 'npm test -- -u'] }))
    expect(choice.match(/type="radio"/g)).toHaveLength(2)
    // The suggested one is picked, and the button says what it keeps.
    expect(choice).toMatch(
      /<input type="radio"[^>]*checked=""[^>]*\/><ul[^>]*><li><code>npm test \*<\/code>/,
    )
    expect(choice).toContain('Always allow <code>npm test *</code>')
    expect(choice).toContain('only this exact command')

    const several = rendered(request({ grantOptions: ['ls *\nwc *', 'ls src\nwc -l a'] }))
    expect(several).toContain('<li><code>ls *</code></li><li><code>wc *</code></li>')
    expect(several).toContain('Always allow these commands')
  })
})
