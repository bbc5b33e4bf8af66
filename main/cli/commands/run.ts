import { ensureHome, loadConfig } from '../../core/host/index.js'
import { isApprovalMode } from '../../core/tools/approvals.js'
import { databasePath } from '../../core/store/index.js'
import { runPrompt } from '../run.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'
import { modelFlags, parseCount } from './options.js'

/**
 * `bridle run "prompt"`: one turn (`../run.ts`). Exits 0 when it completes, 130 when the user
 * cancelled it, 143 when a signal interrupted it, 1 otherwise.
 */
export const run: CliCommand = {
  name: 'run',
  usage: '"prompt"',
  summary: 'Ask the agent; streams the answer. Exits 0 when the turn completes.',
  options: [
    { flag: '--project DIR', text: 'The project folder (default: the current folder).' },
    { flag: '--session ID', text: 'Continue this session (repairs it first if it crashed).' },
    {
      flag: '--base-url URL',
      text: 'An OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1.',
    },
    { flag: '--model NAME', text: 'The model (default: defaultModel in config.json).' },
    { flag: '--api-key-env VAR', text: 'Read the API key from this environment variable.' },
    { flag: '--max-steps N', text: 'Stop the turn after N model requests.' },
    {
      flag: '--approval MODE',
      text: 'ask (default), auto-edit or full-auto: what may run without asking.\nIn ask mode a terminal is asked before edits and commands; without one (piped, CI) they are refused with NO_APPROVAL_CHANNEL.',
    },
    {
      flag: '--code-mode',
      text: 'Also give the model run_code: one JavaScript program that calls the tools (codeMode in config.json sets its limits).',
    },
    { flag: '--json', text: 'Print every event as JSON Lines instead of the answer.' },
    {
      flag: '--trust-project-mcp',
      text: "Trust the project's .mcp.json as it is now and start its MCP servers (without it, a terminal is asked; piped, they stay off).",
    },
    {
      flag: '--context-window N',
      text: "The model's context in tokens (default: what the server reports, else contextWindow in config.json); compaction starts at 80% of it.",
    },
  ],
  async run({ positionals, values }, { home, version, withStoreAsync }) {
    const prompt = positionals.join(' ')
    if (prompt.trim() === '')
      throw new UsageError('run needs a prompt, e.g. bridle run "explain this repo"')
    const config = loadConfig(ensureHome(home))
    const approval = values.approval ?? config.approval
    if (!isApprovalMode(approval)) {
      throw new UsageError(`--approval must be ask, auto-edit or full-auto, not "${approval}"`)
    }
    const outcome = await withStoreAsync(databasePath(home), (store) =>
      runPrompt({
        store,
        config,
        prompt,
        projectDir: values.project ?? process.cwd(),
        json: values.json ?? false,
        dataDir: home,
        approval,
        ...(process.stdin.isTTY ? { approvalInput: process.stdin } : {}),
        env: process.env,
        version,
        trustProjectMcp: values['trust-project-mcp'] ?? false,
        codeMode: values['code-mode'] ?? false,
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        ...(values.session === undefined ? {} : { sessionId: values.session }),
        ...modelFlags(values),
        ...(values['max-steps'] === undefined
          ? {}
          : { maxSteps: parseCount('--max-steps', values['max-steps']) }),
        ...(values['context-window'] === undefined
          ? {}
          : { contextWindow: parseCount('--context-window', values['context-window']) }),
      }),
    )
    if (outcome.reason === 'completed') return 0
    process.stderr.write(
      `bridle: the turn ended: ${outcome.reason}${outcome.error ? ` (${outcome.error.code}: ${outcome.error.message})` : ''}\n`,
    )
    return outcome.reason === 'cancelled' ? 130 : outcome.reason === 'interrupted' ? 143 : 1
  },
}
