import { HostError } from './host.js'
import { loadConfig } from './config.js'
import type {
  HandlerGroup,
  HostContext,
  SecretBox,
  SettingsMethods,
  SettingsService,
} from './services.js'

export interface SettingsOptions {
  readonly secretBox?: SecretBox
  readonly env: NodeJS.ProcessEnv
}

const notYet = (method: string) => (): never => {
  throw new HostError('UNSUPPORTED', `${method} is not built yet`)
}

/** Settings, endpoints and credentials (stub: to be built). */
export function createSettings(
  ctx: HostContext,
  _opts: SettingsOptions,
): { service: SettingsService; handlers: HandlerGroup<SettingsMethods> } {
  return {
    service: {
      current: () => loadConfig(ctx.home),
      resolveModel: () => Promise.reject(new HostError('UNSUPPORTED', 'no endpoints yet')),
      rememberApprovalRule: notYet('rememberApprovalRule'),
    },
    handlers: {
      'settings/get': notYet('settings/get'),
      'settings/update': notYet('settings/update'),
      'endpoint/list': notYet('endpoint/list'),
      'endpoint/test': notYet('endpoint/test'),
      'endpoint/discover': notYet('endpoint/discover'),
      'model/list': notYet('model/list'),
      'credential/set': notYet('credential/set'),
      'credential/delete': notYet('credential/delete'),
    },
  }
}
