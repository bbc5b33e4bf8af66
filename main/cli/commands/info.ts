import { dispatchCall } from '../../core/host/index.js'
import type { CommandArgs, CommandContext } from './command.js'
import { writeOut } from '../terminal.js'

/** `bridle info`: the app info (`app/info` through the contract) as JSON. */
export async function run(_args: CommandArgs, { bootHost }: CommandContext): Promise<number> {
  const host = await bootHost()
  const result = await dispatchCall(host, 'app/info', {}, { transport: 'in-process' })
  await host.close()
  if (!result.ok) throw new Error(result.error.message)
  writeOut(`${JSON.stringify(result.value, null, 2)}\n`)
  return 0
}
