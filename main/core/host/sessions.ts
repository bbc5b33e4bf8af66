import { HostError } from './host.js'
import type {
  HandlerGroup,
  HostContext,
  RuntimeService,
  SessionMethods,
  SettingsService,
} from './services.js'

const notYet = (method: string) => (): never => {
  throw new HostError('UNSUPPORTED', `${method} is not built yet`)
}

/** Projects and the session views: lists, the tree, events, forks, search (stub: to be built). */
export function sessionHandlers(
  _ctx: HostContext,
  _deps: { readonly settings: SettingsService; readonly runtime: RuntimeService },
): HandlerGroup<SessionMethods> {
  return {
    'project/open': notYet('project/open'),
    'project/recent': notYet('project/recent'),
    'session/list': notYet('session/list'),
    'session/create': notYet('session/create'),
    'session/get': notYet('session/get'),
    'session/rename': notYet('session/rename'),
    'session/delete': notYet('session/delete'),
    'session/restore': notYet('session/restore'),
    'session/tree': notYet('session/tree'),
    'session/fork': notYet('session/fork'),
    'session/events': notYet('session/events'),
    'session/search': notYet('session/search'),
    'session/request': notYet('session/request'),
    'output/read': notYet('output/read'),
    'workspace/diff': notYet('workspace/diff'),
  }
}
