import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Session } from '../log/session.js'

const run = promisify(execFile)

/** git status on a big repository can be slow; past this the turn goes on without it. */
export const DEFAULT_GIT_TIMEOUT_MS = 3000
/** A status listing longer than this (thousands of changed files) is left out, not parsed. */
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024

export interface ContextOptions {
  readonly projectDir: string
  /** The clock, epoch milliseconds; tests move it forward. */
  readonly now?: () => number
  readonly gitTimeoutMs?: number
}

/**
 * The volatile context of a turn: today's date and, in a git repository, the branch and a
 * summary of its changes. It goes to the model as a logged `user/message` of kind `context`,
 * never into the system prompt, so the prompt's bytes (and a local server's cached prefix) stay.
 * Never throws: git that is missing, slow or failing is left out.
 */
export async function computeContext(opts: ContextOptions, signal?: AbortSignal): Promise<string> {
  const now = opts.now ?? Date.now
  const git = await gitSummary(opts.projectDir, {
    timeoutMs: opts.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  })
  return [
    'Context at the start of this turn (added by Bridle, not written by the user):',
    `- Today's date: ${formatDate(now())}`,
    ...(git === undefined ? [] : [`- Git: ${git}`]),
  ].join('\n')
}

/** YYYY-MM-DD in the machine's time zone: the user's "today". */
export function formatDate(ms: number): string {
  const date = new Date(ms)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/**
 * "on branch main; 2 modified, 1 untracked", or undefined when the folder is not in a git
 * repository, git is not installed, or it fails or times out. Runs git directly (no shell),
 * without taking the index lock (the user's own git commands must not collide with it) and
 * with the repository's fsmonitor hook off, so opening a project runs none of its programs.
 */
export async function gitSummary(
  projectDir: string,
  opts: { readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<string | undefined> {
  try {
    const { stdout } = await run(
      'git',
      ['-c', 'core.fsmonitor=false', 'status', '--porcelain=v1', '--branch'],
      {
        cwd: projectDir,
        env: gitEnv(),
        timeout: opts.timeoutMs,
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        windowsHide: true,
        encoding: 'utf8',
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    )
    return summarizeStatus(stdout)
  } catch {
    // Not a repository, no git, a timeout or a cancel: the context simply has no git line.
    return undefined
  }
}

/** Parses `git status --porcelain=v1 --branch` into one short line. */
export function summarizeStatus(porcelain: string): string {
  const lines = porcelain.split('\n').filter((line) => line !== '')
  let branch = 'an unknown branch'
  const counts = new Map<string, number>()
  for (const line of lines) {
    if (line.startsWith('## ')) {
      branch = branchOf(line.slice(3))
      continue
    }
    const kind = changeKind(line.slice(0, 2))
    counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  const parts = CHANGE_KINDS.filter((kind) => counts.has(kind)).map(
    (kind) => `${counts.get(kind) ?? 0} ${kind}`,
  )
  return `${branch}; ${parts.length > 0 ? parts.join(', ') : 'no uncommitted changes'}`
}

const CHANGE_KINDS = ['conflicted', 'added', 'deleted', 'renamed', 'modified', 'untracked'] as const
type ChangeKind = (typeof CHANGE_KINDS)[number]

function changeKind(xy: string): ChangeKind {
  if (xy === '??') return 'untracked'
  if (xy.includes('U') || xy === 'AA' || xy === 'DD') return 'conflicted'
  if (xy.startsWith('R') || xy.startsWith('C')) return 'renamed'
  if (xy.startsWith('A')) return 'added'
  if (xy.includes('D')) return 'deleted'
  return 'modified'
}

function branchOf(header: string): string {
  if (header.startsWith('HEAD (no branch)')) return 'a detached HEAD'
  for (const prefix of ['No commits yet on ', 'Initial commit on ']) {
    if (header.startsWith(prefix))
      return `on branch ${header.slice(prefix.length)} (no commits yet)`
  }
  // "main...origin/main [ahead 1]": the upstream and its distance change too often to matter.
  const name = header.split('...')[0] ?? header
  return `on branch ${name.split(' ')[0] ?? name}`
}

/**
 * The environment without the caller's GIT_* variables (a GIT_DIR set by a hook Bridle runs
 * under would point git at another repository), with stable English output.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('GIT_')) env[key] = value
  return { ...env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }
}

/**
 * The text of the last context message the model still sees (on the surface), if any. A context
 * message a compaction summarised away does not count, so the next turn states the context again.
 */
export function lastContextMessage(session: Session): string | undefined {
  const nodes = session.surfaceNodes()
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]
    if (node?.kind !== 'user') continue
    const event = session.event(node.seq)
    if (event?.type === 'user/message' && event.data.kind === 'context') return event.data.content
  }
  return undefined
}

/**
 * The loop's turn-context hook: the context to log at this turn's start, or undefined when it
 * equals the last one the model sees (so a quiet day adds nothing, and the request only grows).
 */
export function turnContext(
  opts: ContextOptions,
): (session: Session, signal: AbortSignal) => Promise<string | undefined> {
  return async (session, signal) => {
    const text = await computeContext(opts, signal)
    return text === lastContextMessage(session) ? undefined : text
  }
}
