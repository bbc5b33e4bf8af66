/**
 * The trust question about a project's MCP servers, as the CLI prints it and settings show it:
 * every field of each server's entry, each string passed through `visibleText` (no control
 * character or ANSI sequence reaches a terminal or a page as itself), the values of env, headers,
 * URL credentials and URL query masked — saying where each comes from (the file, or a variable of
 * your environment) and where it goes — and the project files trust covers with their hashes.
 * One place for these words, so the two faces cannot drift apart.
 */
import type { McpServerConfig, McpTrustServerView } from '../../../protocol/mcp.js'
import { hasHiddenText, visibleText } from '../../../protocol/visible-text.js'
import { describeTarget, PROJECT_MCP_FILE } from '../mcp/config.js'
import type { McpFingerprint } from './mcp-fingerprint.js'

export const MASK = '••••'

type Field = McpTrustServerView['fields'][number]

/** Each server of the file as the question shows it (`fingerprint` gives its covered files). */
export function trustServerViews(
  servers: Readonly<Record<string, McpServerConfig>>,
  fingerprint: McpFingerprint | undefined,
): McpTrustServerView[] {
  return Object.entries(servers).map(([name, config]) => ({
    name: visibleText(name),
    target: visibleText(maskedTarget(config)),
    fields: fieldsOf(config).map(({ label, value }) => ({
      label: visibleText(label),
      value: visibleText(value),
    })),
    files: (fingerprint?.files[name] ?? []).map((file) => ({
      path: visibleText(file.path),
      sha256: file.sha256,
    })),
  }))
}

/** Whether any name, key or value of the servers holds a control or invisible character. */
export function hasHiddenCharacters(servers: Readonly<Record<string, McpServerConfig>>): boolean {
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : typeof value === 'object' && value !== null
        ? Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)])
        : []
  return strings(servers).some(hasHiddenText)
}

/** The question in lines for a terminal (no colours), `indent` before each. */
export function trustLines(views: readonly McpTrustServerView[], indent = '  '): string[] {
  const lines: string[] = []
  for (const view of views) {
    lines.push(`${indent}${view.name}: ${view.target}`)
    const width = Math.max(...view.fields.map((f) => f.label.length), 'covers'.length)
    for (const field of view.fields)
      lines.push(`${indent}    ${field.label.padEnd(width)}  ${field.value}`)
    for (const file of view.files)
      lines.push(`${indent}    ${'covers'.padEnd(width)}  ${file.path}  ${shortHash(file.sha256)}`)
  }
  return lines
}

/** A covered file's hash as shown: its first 12 digits, or that it does not exist yet. */
export function shortHash(sha256: string | null): string {
  return sha256 === null
    ? '(missing now: one that appears asks again)'
    : `sha256 ${sha256.slice(0, 12)}`
}

function fieldsOf(config: McpServerConfig): Field[] {
  const fields: Field[] = []
  if (config.type !== undefined) fields.push({ label: 'type', value: config.type })
  if ('command' in config) {
    fields.push({ label: 'command', value: config.command })
    ;(config.args ?? []).forEach((arg, i) => fields.push({ label: `arg ${i + 1}`, value: arg }))
    fields.push({ label: 'cwd', value: config.cwd ?? '(the project folder)' })
    for (const [key, value] of Object.entries(config.env ?? {}))
      fields.push({ label: 'env', value: `${key}=${MASK} ${secretSource(value)}` })
  } else {
    const host = hostOf(config.url)
    fields.push({ label: 'url', value: maskedUrl(config.url) })
    for (const [key, value] of Object.entries(config.headers ?? {}))
      fields.push({
        label: 'header',
        value: `${key}: ${MASK} ${secretSource(value, host)}`,
      })
  }
  if (config.enabled !== undefined) fields.push({ label: 'enabled', value: String(config.enabled) })
  if (config.timeoutMs !== undefined)
    fields.push({ label: 'timeoutMs', value: String(config.timeoutMs) })
  if (config.startTimeoutMs !== undefined)
    fields.push({ label: 'startTimeoutMs', value: String(config.startTimeoutMs) })
  return fields
}

/** Where a masked value comes from (and, for a header, where it is sent). */
function secretSource(value: string, sentTo?: string): string {
  const names = [...value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] as string)
  const from =
    names.length > 0
      ? `from your environment: ${[...new Set(names)].join(', ')}`
      : `written in ${PROJECT_MCP_FILE}`
  return sentTo === undefined ? `(${from}; given to this server)` : `(${from}; sent to ${sentTo})`
}

function maskedTarget(config: McpServerConfig): string {
  return 'command' in config ? describeTarget(config) : maskedUrl(config.url)
}

/** The URL with its user, password and every query value masked (names kept). */
function maskedUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    const query = raw.indexOf('?')
    return query === -1 ? raw : `${raw.slice(0, query)}?${MASK}`
  }
  const user = url.username === '' ? '' : `${MASK}${url.password === '' ? '' : `:${MASK}`}@`
  const query = [...url.searchParams.keys()].map((key) => `${key}=${MASK}`).join('&')
  const path = `${url.pathname}${query === '' ? '' : `?${query}`}${url.hash === '' ? '' : '#…'}`
  return `${url.protocol}//${user}${url.host}${path}`
}

function hostOf(raw: string): string {
  try {
    return new URL(raw).host
  } catch {
    return 'the address above'
  }
}
