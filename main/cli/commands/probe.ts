import { loadConfig, ensureHome } from '../../core/host/index.js'
import { probeCardLines } from '../../core/host/endpoints/probe-card.js'
import { probeCommand } from '../probe.js'
import type { CliCommand } from './command.js'
import { modelFlags, parseCount } from './options.js'

/** `bridle probe`: the capability probe (`../probe.ts`), printed as a card or as JSON. */
export const probe: CliCommand = {
  name: 'probe',
  usage: '',
  summary:
    'Test what a model on a server can do: tool calls (streamed, not streamed, as text), where reasoning comes, stream_options, and the context window it really honours. Prints a capability card, and Bridle talks to that model accordingly from then on.\nTakes --base-url/--model/--api-key-env like run.',
  options: [
    { flag: '--context-tokens N', text: 'Size of the long-prompt test (default 6000).' },
    { flag: '--json', text: 'Print the report as JSON.' },
  ],
  async run({ values }, { home, print }) {
    const config = loadConfig(ensureHome(home))
    const report = await probeCommand({
      config,
      env: process.env,
      dataDir: home,
      ...modelFlags(values),
      ...(values['context-tokens'] === undefined
        ? {}
        : { contextTokens: parseCount('--context-tokens', values['context-tokens']) }),
    })
    if (values.json) print(JSON.stringify(report, null, 2))
    else for (const line of probeCardLines(report)) print(line)
    return 0
  },
}
