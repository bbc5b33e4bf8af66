import { createInterface } from 'node:readline'
import type { ApprovalChannel, ApprovalDecision } from '../core/tools/approvals.js'
import { approvalQuestion } from './approval-question.js'

/**
 * Asks on the terminal whether a call may run. Shows exactly what will run and why it needs care
 * (`approvalQuestion`: every argument, escaped, so no text in it can pose as another), then
 * reads one answer line: `y` allow once, `a` always allow (the pattern or path shown), `e` always
 * allow exactly this command (when offered), `n` deny, optionally followed by a reason the model
 * will see (`n use the test script`). Questions are asked one at a time. When input ends, nobody
 * can answer: the call is refused as having no approval channel, never allowed.
 */
export function terminalApprovals(
  input: NodeJS.ReadableStream,
  write: (text: string) => void,
): { readonly channel: ApprovalChannel; close(): void } {
  const lines = createInterface({ input, terminal: false, crlfDelay: Infinity })
  const waiting: ((line: string | undefined) => void)[] = []
  const buffered: string[] = []
  let isClosed = false
  lines.on('line', (line) => {
    const next = waiting.shift()
    if (next) next(line)
    else buffered.push(line)
  })
  lines.on('close', () => {
    isClosed = true
    for (const next of waiting.splice(0)) next(undefined)
  })
  const nextLine = (signal: AbortSignal): Promise<string | undefined> => {
    const line = buffered.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (isClosed) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const take = (value: string | undefined) => {
        signal.removeEventListener('abort', drop)
        resolve(value)
      }
      // A cancelled question stops listening, so its answer is not taken for the next one.
      const drop = () => {
        const index = waiting.indexOf(take)
        if (index >= 0) waiting.splice(index, 1)
      }
      signal.addEventListener('abort', drop, { once: true })
      waiting.push(take)
    })
  }

  let queue: Promise<unknown> = Promise.resolve()
  const channel: ApprovalChannel = (request, signal) => {
    const ask = async (): Promise<ApprovalDecision> => {
      const [general, exact] = request.grantOptions ?? []
      write(approvalQuestion(request, general, exact))
      for (;;) {
        const line = await nextLine(signal)
        if (signal.aborted) throw new Error('cancelled')
        if (line === undefined) throw new Error('the terminal input ended')
        const answer = parseAnswer(line, general, exact)
        if (answer) return answer
        write(
          `  answer y, ${general === undefined ? '' : 'a, '}${exact === undefined ? '' : 'e, '}or n [reason]\n> `,
        )
      }
    }
    const turn = queue.then(ask, ask)
    queue = turn.catch(() => undefined)
    return turn
  }
  // Closing the reader lets the process exit; stdin itself stays open for whoever owns it.
  return { channel, close: () => lines.close() }
}

function parseAnswer(
  line: string,
  general: string | undefined,
  exact: string | undefined,
): ApprovalDecision | undefined {
  const match = /^\s*(y|yes|a|always|e|exact|n|no)\b[\s:,-]*(.*)$/i.exec(line)
  const word = match?.[1]?.toLowerCase()
  if (word === undefined) return undefined
  if (word === 'y' || word === 'yes') return { decision: 'allow' }
  if (word === 'a' || word === 'always') {
    return general === undefined ? undefined : { decision: 'allow', remember: true, grant: general }
  }
  if (word === 'e' || word === 'exact') {
    return exact === undefined ? undefined : { decision: 'allow', remember: true, grant: exact }
  }
  const reason = match?.[2]?.trim()
  return reason ? { decision: 'deny', reason } : { decision: 'deny' }
}
