import { ensureHome } from '../../core/host/home.js'
import { loadConfig } from '../../core/host/settings/config.js'
import { probeCardLines } from '../../core/host/endpoints/probe-card.js'
import { probeCommand } from '../probe.js'
import type { CommandArgs, CommandContext } from './command.js'
import { launchEnvironment } from '../launch-env.js'
import { modelFlags, parseCount } from './options.js'

/** `bridle probe`: the capability probe (`../probe.ts`), printed as a card or as JSON. */
export async function run(
  { values }: CommandArgs,
  { home, print }: CommandContext,
): Promise<number> {
  const config = loadConfig(ensureHome(home))
  const report = await probeCommand({
    config,
    env: launchEnvironment(),
    dataDir: home,
    ...modelFlags(values),
    ...(values['context-tokens'] === undefined
      ? {}
      : { contextTokens: parseCount('--context-tokens', values['context-tokens']) }),
  })
  if (values.json) print(JSON.stringify(report, null, 2))
  else for (const line of probeCardLines(report)) print(line)
  return 0
}
