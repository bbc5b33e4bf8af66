import type { CliCommand } from './command.js'

/**
 * The `bridle` commands, in the order `bridle --help` lists them, with what the help says of each.
 * The code of a command is a module of this folder exporting `run`, imported only when that
 * command runs: the help and every other command start without loading it (the bundler makes
 * each one a chunk of its own). A new command goes here, and its module beside this file.
 */
export const COMMANDS: readonly CliCommand[] = [
  {
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
        flag: '--allow-home',
        text: 'Work in a project folder that is or holds your home folder (without it, a terminal is asked; piped, the run does not start).',
      },
      {
        flag: '--context-window N',
        text: "The model's context in tokens (default: what the server reports, else contextWindow in config.json); compaction starts at 80% of it.",
      },
    ],
    load: () => import('./run.js'),
  },
  {
    name: 'compact',
    usage: '<sessionId>',
    summary:
      "Summarise the early part of a session's history now (the originals stay in the log). Takes --base-url/--model like run.",
    options: [{ flag: '--focus TEXT', text: 'What the summary should keep above all.' }],
    load: () => import('./compact.js'),
  },
  {
    name: 'uncompact',
    usage: '<sessionId> <checkpointSeq>',
    summary: "Undo a compaction: the originals return to the model's view.",
    load: () => import('./uncompact.js'),
  },
  {
    name: 'discover',
    usage: '',
    summary:
      'Look for local model servers (Ollama, LM Studio, llama.cpp, vLLM) on their usual ports and list their models.',
    options: [
      { flag: '--port N', text: 'Probe this port instead (repeatable: --port 8080 --port 9000).' },
    ],
    load: () => import('./discover.js'),
  },
  {
    name: 'probe',
    usage: '',
    summary:
      'Test what a model on a server can do: tool calls (streamed, not streamed, as text), where reasoning comes, stream_options, and the context window it really honours. Prints a capability card, and Bridle talks to that model accordingly from then on.\nTakes --base-url/--model/--api-key-env like run.',
    options: [
      { flag: '--context-tokens N', text: 'Size of the long-prompt test (default 6000).' },
      { flag: '--json', text: 'Print the report as JSON.' },
    ],
    load: () => import('./probe.js'),
  },
  {
    name: 'show',
    usage: '<sessionId>',
    summary: "Print a session's conversation.",
    load: () => import('./show.js'),
  },
  {
    name: 'fork',
    usage: '<sessionId> --at SEQ',
    summary: 'Fork a session: the new one shares events 0..SEQ-1; prints its id.',
    load: () => import('./fork.js'),
  },
  {
    name: 'restore',
    usage: '<sessionId> <seq> | <sessionId> --undo',
    summary:
      "Put the project's files back to how they were right after event SEQ of the session (only files its turns changed; .git never). Stops, naming them, if files changed outside Bridle.",
    options: [
      { flag: '--force', text: 'Restore although files changed outside Bridle (overwrites them).' },
      { flag: '--undo', text: 'Put the files back to how they were before the last restore.' },
      { flag: '--dry-run', text: 'Only print what it would do; nothing is touched or logged.' },
    ],
    load: () => import('./restore.js'),
  },
  {
    name: 'info',
    usage: '',
    summary: 'Print the app info (version, data folder, platform) as JSON.',
    load: () => import('./info.js'),
  },
  {
    name: 'serve',
    usage: '',
    summary:
      'Serve the UI and the bridge on a loopback port, for a browser. Prints the address to open: http://127.0.0.1:PORT/?token=...',
    options: [
      {
        flag: '--project DIR',
        text: 'Open this project folder first (it heads the recent projects).',
      },
      { flag: '--home DIR', text: 'The data folder (as for every command).' },
      { flag: '--port N', text: 'Port to listen on (default 7420; 0 picks a free one).' },
      {
        flag: '--host ADDR',
        text: '127.0.0.1 (default), localhost or ::1; never a public address.',
      },
      {
        flag: '--renderer DIR',
        text: 'The built renderer to serve (default: out/renderer; npm run build).',
      },
      {
        flag: '--base-url URL',
        text: "A model endpoint for new sessions (as for run; also --model, --api-key-env, --context-window); default: config.json's.",
      },
    ],
    load: () => import('./serve.js'),
  },
  {
    name: 'export',
    usage: '<sessionId>',
    summary:
      "Write a session's whole history (forks flattened): as JSON Lines (what import reads), or as a readable transcript with secrets redacted.",
    options: [
      {
        flag: '--format jsonl|html|md',
        text: 'jsonl (default): every event, for import. html: one self-contained page. md: GitHub-flavoured Markdown. Transcripts fold tool calls, show diffs and redact secrets (best-effort).',
      },
      {
        flag: '--out FILE',
        text: 'Write to FILE (atomically: all or nothing) instead of stdout.',
      },
    ],
    load: () => import('./export.js'),
  },
  {
    name: 'import',
    usage: '<FILE> | --scan',
    summary:
      'Import a session as a new one and print its id: a Bridle export, or a session log of Claude Code, Codex CLI, pi or DeepSeek Harness (the format is detected; pi branches become forks).\n--scan lists the sessions those tools keep under your home folder.',
    options: [
      {
        flag: '--project DIR',
        text: "The imported session's project folder. Without it, the folder the file recorded is used only if you confirm it on a terminal; otherwise the current folder.",
      },
      { flag: '--scan', text: 'List importable sessions (newest first) instead of importing.' },
      { flag: '--json', text: 'With --scan: one JSON object per session.' },
    ],
    load: () => import('./import.js'),
  },
  {
    name: 'sessions',
    usage: '',
    summary: 'List sessions, newest first, forks indented under their parent.',
    load: () => import('./sessions.js'),
  },
  {
    name: 'inspect',
    aliases: ['events'],
    usage: '<sessionId>',
    summary: "Print a session's timeline, one line per event.",
    options: [
      {
        flag: '--type TYPE',
        text: 'Only events of this type (repeatable, e.g. --type tool/call).',
      },
      { flag: '--turn N', text: 'Only events of turn N.' },
      { flag: '--from SEQ', text: 'Start at this seq.' },
      { flag: '--limit N', text: 'At most N events.' },
    ],
    load: () => import('./inspect.js'),
  },
  {
    name: 'search',
    usage: '<text>',
    summary: 'Full-text search over messages and tool output of every session.',
    options: [{ flag: '--limit N', text: 'At most N hits (default 20).' }],
    load: () => import('./search.js'),
  },
  {
    name: 'mcp',
    usage: 'list | test <name> | trust',
    summary:
      "The MCP servers of config.json and the project's .mcp.json: list them with their state and tools, test one, or trust the project's file.",
    options: [
      { flag: '--project DIR', text: 'The project folder (default: the current folder).' },
      { flag: '--json', text: 'Print the servers as JSON.' },
    ],
    load: () => import('./mcp.js'),
  },
]
