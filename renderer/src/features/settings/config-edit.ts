/**
 * Edits of the settings as pure functions: each takes the config as `settings/get` returned it
 * and gives back the whole config to send to `settings/update`. Only the named part changes, so
 * fields the forms do not show (an endpoint's `models` windows, `limits`, `compaction.model`)
 * travel back exactly as they were read.
 */
import { Config } from '../../../../protocol/settings'
import type { ApprovalRuleConfig } from '../../../../protocol/settings'
import type { DiscoveredServer } from '../../../../protocol/contract'

export type EndpointConfig = Config['endpoints'][string]
export type ApprovalMode = Config['approval']
export type SandboxMode = Config['sandbox']
export type PruneConfig = Config['compaction']['prune']

/** What the endpoint form edits; text as typed (the API key variable may be empty). */
export interface EndpointDraft {
  readonly id: string
  readonly baseUrl: string
  readonly apiKeyEnv: string
}

/** What the compaction form edits, already checked and parsed. */
export interface CompactionDraft {
  readonly threshold: number
  readonly keepUserTurns: number
  readonly isPruning: boolean
}

/**
 * The schema's own pruning options, for pruning turned back on after it was off (the config then
 * holds `false`, so there are none to keep). Asked of the schema so they cannot drift from it.
 */
export function defaultPrune(): PruneConfig {
  return Config.parse({ compaction: { prune: {} } }).compaction.prune
}

/** Adds endpoint `draft.id`, or changes its address and key variable, keeping its other fields. */
export function withEndpoint(config: Config, draft: EndpointDraft): Config {
  const id = draft.id.trim()
  const { apiKeyEnv: _dropped, ...kept } = config.endpoints[id] ?? {}
  const apiKeyEnv = draft.apiKeyEnv.trim()
  const endpoint: EndpointConfig = {
    ...kept,
    baseUrl: draft.baseUrl.trim(),
    ...(apiKeyEnv === '' ? {} : { apiKeyEnv }),
  }
  return { ...config, endpoints: { ...config.endpoints, [id]: endpoint } }
}

/**
 * Removes an endpoint. When it was the default, the defaults go too: `defaultModel` names a model
 * of the default endpoint, and a `defaultEndpoint` naming nothing would be refused.
 */
export function withoutEndpoint(config: Config, id: string): Config {
  const endpoints = Object.fromEntries(
    Object.entries(config.endpoints).filter(([other]) => other !== id),
  )
  // A project's defaults that named it go as a whole: its model was one of that endpoint's.
  const projects = Object.fromEntries(
    Object.entries(config.projects).filter(([, own]) => own.endpoint !== id),
  )
  if (config.defaultEndpoint !== id) return { ...config, endpoints, projects }
  const { defaultEndpoint: _endpoint, defaultModel: _model, ...rest } = config
  return { ...rest, endpoints, projects }
}

/**
 * Sets a project folder's own endpoint and model for new sessions; both empty removes its
 * entry, so the project follows the global defaults again.
 */
export function withProjectDefaults(
  config: Config,
  projectDir: string,
  defaults: { readonly endpointId: string; readonly model: string },
): Config {
  const { [projectDir]: _old, ...others } = config.projects
  const endpoint = defaults.endpointId.trim()
  const model = defaults.model.trim()
  if (endpoint === '' && model === '') return { ...config, projects: others }
  return {
    ...config,
    projects: {
      ...others,
      [projectDir]: {
        ...(endpoint === '' ? {} : { endpoint }),
        ...(model === '' ? {} : { model }),
      },
    },
  }
}

/** Sets (or, with an empty value, clears) the default endpoint and the default model. */
export function withDefaults(
  config: Config,
  defaults: { readonly endpointId: string; readonly model: string },
): Config {
  const { defaultEndpoint: _endpoint, defaultModel: _model, ...rest } = config
  const endpointId = defaults.endpointId.trim()
  const model = defaults.model.trim()
  return {
    ...rest,
    ...(endpointId === '' ? {} : { defaultEndpoint: endpointId }),
    ...(model === '' ? {} : { defaultModel: model }),
  }
}

export function withApprovalMode(config: Config, mode: ApprovalMode): Config {
  return { ...config, approval: mode }
}

export function withSandbox(config: Config, mode: SandboxMode): Config {
  return { ...config, sandbox: mode }
}

/** Forgets one remembered rule, by its position in `approvalRules`. */
export function withoutApprovalRule(config: Config, index: number): Config {
  return { ...config, approvalRules: config.approvalRules.filter((_, at) => at !== index) }
}

/** Threshold, kept turns and pruning; pruning's own options are kept while it stays on. */
export function withCompaction(config: Config, draft: CompactionDraft): Config {
  const current = config.compaction.prune
  const prune: PruneConfig = draft.isPruning
    ? current === false
      ? defaultPrune()
      : current
    : false
  return {
    ...config,
    compaction: {
      ...config.compaction,
      threshold: draft.threshold,
      keepUserTurns: draft.keepUserTurns,
      prune,
    },
  }
}

/** The endpoint id a discovered server gets: its kind, made unique among the existing ids. */
export function suggestEndpointId(kind: string, existingIds: readonly string[]): string {
  // Dots would make the field paths of errors (`endpoints.<id>.baseUrl`) ambiguous.
  const base = kind === 'openai-compatible' ? 'local' : kind.replace(/[^A-Za-z0-9_-]+/g, '-')
  if (!existingIds.includes(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!existingIds.includes(candidate)) return candidate
  }
}

/** The configured endpoint with this base URL (a trailing slash does not matter), if any. */
export function endpointIdWithUrl(config: Config, baseUrl: string): string | undefined {
  const wanted = baseUrl.replace(/\/+$/, '')
  return Object.entries(config.endpoints).find(
    ([, endpoint]) => endpoint.baseUrl.replace(/\/+$/, '') === wanted,
  )?.[0]
}

/**
 * Adds a discovered server as an endpoint. With `makeDefault` (first run, or no default yet) it
 * also becomes the default endpoint, with its first model as the default model when it has one.
 */
export function withDiscoveredServer(
  config: Config,
  server: DiscoveredServer,
  makeDefault: boolean,
): { readonly config: Config; readonly endpointId: string } {
  const endpointId = suggestEndpointId(server.kind, Object.keys(config.endpoints))
  const added = withEndpoint(config, { id: endpointId, baseUrl: server.baseUrl, apiKeyEnv: '' })
  if (!makeDefault) return { config: added, endpointId }
  return {
    config: withDefaults(added, { endpointId, model: server.models[0]?.id ?? '' }),
    endpointId,
  }
}

/**
 * What a rule matches, as lines: a command `pattern` (one per line when the rule covers a line of
 * several commands), else the file tools' path `prefix`; empty when it names just the tool.
 */
export function ruleTargetLines(rule: ApprovalRuleConfig): string[] {
  const target = rule.pattern ?? rule.prefix
  return target === undefined ? [] : target.split('\n').filter((line) => line.trim() !== '')
}

/** A rule's words for the list and for its delete button's label. */
export function describeRule(rule: ApprovalRuleConfig): string {
  const lines = ruleTargetLines(rule)
  const what = lines.length === 0 ? rule.tool : `${rule.tool} "${lines.join(' · ')}"`
  return `${rule.effect === 'allow' ? 'Allow' : 'Deny'} ${what}`
}

/** Adds (or updates) an endpoint and makes it the default, with `model` as the default model. */
export function withDefaultEndpoint(config: Config, draft: EndpointDraft, model: string): Config {
  return withDefaults(withEndpoint(config, draft), { endpointId: draft.id, model })
}
