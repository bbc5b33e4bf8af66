/**
 * Approvals over the bridge: the approval channel the runtime gives each session's policy. A
 * question is notified as `approval/request` and waits, listed in `pending`, until
 * `approval/respond` answers it or the turn's signal aborts it (a cancel, or the Host closing).
 */
import type { ApprovalRequest as BridgeApprovalRequest } from '../../../../protocol/contract.js'
import type { Session } from '../../log/session.js'
import type { ApprovalChannel, ApprovalDecision } from '../../tools/approvals.js'

export interface ApprovalAnswer {
  readonly sessionId: string
  readonly callId: string
  readonly decision: 'allow' | 'deny'
  readonly remember?: boolean
  readonly grant?: string
  readonly reason?: string
}

interface Waiting {
  readonly request: BridgeApprovalRequest
  readonly answer: (decision: ApprovalDecision) => void
}

export class ApprovalBridge {
  /**
   * Waiting questions by session, then by call id: a session runs one step at a time, and ids
   * are unique within a step (the log refuses a message that repeats one), so the id names the
   * call here even where a server reuses ids from step to step.
   */
  private readonly waiting = new Map<string, Map<string, Waiting>>()

  constructor(private readonly announce: (request: BridgeApprovalRequest) => void) {}

  /**
   * The channel for one session's policy. The returned promise settles with the user's answer;
   * it rejects when `signal` aborts (the policy then records the call as cancelled) and the
   * question leaves `pending` either way.
   */
  channelFor(
    session: Session,
    subagent?: {
      readonly sessionId: string
      readonly callId: string
      readonly description: string
    },
  ): ApprovalChannel {
    return (request, signal) =>
      new Promise<ApprovalDecision>((resolve, reject) => {
        if (signal.aborted) {
          reject(new Error('the turn was stopped'))
          return
        }
        const bridged: BridgeApprovalRequest = {
          sessionId: session.id,
          callId: request.callId,
          turn: session.turn,
          step: session.step,
          tool: request.tool,
          description: request.description,
          args: request.args,
          ...(request.approvalKey === undefined ? {} : { approvalKey: request.approvalKey }),
          ...(request.warnings ? { warnings: [...request.warnings] } : {}),
          ...(request.grantOptions && request.grantOptions.length > 0
            ? { grantOptions: [...request.grantOptions] }
            : {}),
          ...(subagent === undefined ? {} : { subagent: { ...subagent } }),
        }
        const forget = () => {
          signal.removeEventListener('abort', onAbort)
          this.remove(session.id, request.callId)
        }
        const onAbort = () => {
          forget()
          reject(new Error('the turn was stopped'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        this.sessionMap(session.id).set(request.callId, {
          request: bridged,
          answer: (decision) => {
            forget()
            resolve(decision)
          },
        })
        this.announce(bridged)
      })
  }

  /**
   * The questions waiting in a session, oldest first (so a reloaded UI can show them again), then
   * those its subagents asked.
   */
  pending(sessionId: string): BridgeApprovalRequest[] {
    const own = [...(this.waiting.get(sessionId)?.values() ?? [])].map((w) => w.request)
    const children = [...this.waiting.entries()]
      .filter(([id]) => id !== sessionId)
      .flatMap(([, calls]) => [...calls.values()].map((w) => w.request))
      .filter((request) => request.subagent?.sessionId === sessionId)
    return [...own, ...children]
  }

  /**
   * Answers a waiting question; false when nothing waits under that call id (answered already,
   * cancelled, or never asked). "Remember" counts only where the question offered a grant (a
   * destructive or compound command has none, and "always" then means once), and only for a
   * grant it offered: an answer cannot widen what the user was shown.
   */
  respond(answer: ApprovalAnswer): boolean {
    const waiting = this.waiting.get(answer.sessionId)?.get(answer.callId)
    if (!waiting) return false
    if (answer.decision === 'deny') {
      waiting.answer({ decision: 'deny', ...(answer.reason ? { reason: answer.reason } : {}) })
    } else {
      const offered = waiting.request.grantOptions ?? []
      const grant = answer.grant ?? waiting.request.approvalKey
      const remember = answer.remember === true && grant !== undefined && offered.includes(grant)
      waiting.answer({ decision: 'allow', ...(remember ? { remember: true, grant } : {}) })
    }
    return true
  }

  private sessionMap(sessionId: string): Map<string, Waiting> {
    let calls = this.waiting.get(sessionId)
    if (!calls) {
      calls = new Map()
      this.waiting.set(sessionId, calls)
    }
    return calls
  }

  private remove(sessionId: string, callId: string): void {
    const calls = this.waiting.get(sessionId)
    calls?.delete(callId)
    if (calls?.size === 0) this.waiting.delete(sessionId)
  }
}
