/**
 * Redaction for transcripts meant for people: every text an export shows passes through one
 * `Redactor` first. It replaces, in this order, the exact secret values it was given (API keys
 * from the environment and the credential store), text shaped like common credentials, and the
 * user's home folder (shown as `~`). Best-effort by nature: a secret of no known shape that was
 * not handed in is left as it is, which is why the export's header says so.
 */
import { MIN_SECRET_LENGTH } from '../tools/builtin/env.js'

export const REDACTED = '[redacted]'

export interface RedactorOptions {
  /** Values to hide wherever they appear; ones shorter than `MIN_SECRET_LENGTH` are ignored. */
  readonly secrets?: readonly string[]
  /** The user's home folder, shown as `~`; none, `/` or a relative path is left alone. */
  readonly home?: string
}

/** Rewrites one text; pure, and idempotent (redacting twice gives the same text). */
export type Redactor = (text: string) => string

/**
 * A name that holds a credential: `API_KEY`, `GITHUB_TOKEN`, `client_secret`, `db.password`, and
 * camelCase `apiKey`. The word must end the name, so `keyword` or `monkey` is not one.
 */
const SECRET_NAME =
  String.raw`(?:[A-Za-z0-9]*[_.-])*(?:[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Pp][Aa][Ss][Ss](?:[Ww][Oo][Rr][Dd]|[Ww][Dd]))[Ss]?` +
  String.raw`|[a-z][A-Za-z0-9]*(?:Key|Token|Secret|Password)s?`

/** Token shapes, each with what replaces a match (`$1` keeps the part that is not secret). */
const SHAPES: readonly (readonly [RegExp, string])[] = [
  // A PEM private key block, to its end line (or the end of the text when it was cut).
  [
    /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
    REDACTED,
  ],
  // OpenAI, DeepSeek, Anthropic and most OpenAI-compatible services: `sk-...`.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  // GitHub: personal, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  // AWS access key ids (long-lived and temporary).
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  // Slack bot, user, app and refresh tokens.
  [/\bxox[abposre]-[A-Za-z0-9-]{10,}/g, REDACTED],
  // An Authorization header's value.
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED}`],
  // `NAME="value"` (spaces allowed), and `NAME=value` (shell, .env, URL queries) up to a space or
  // a separator: an unquoted value after `name = ` is more often code than a secret.
  [
    new RegExp(String.raw`\b(${SECRET_NAME})(\s*=\s*)(?:"[^"\n]*"|'[^'\n]*')`, 'g'),
    `$1$2"${REDACTED}"`,
  ],
  [new RegExp(String.raw`\b(${SECRET_NAME})=[^\s"'\`;&|,)]+`, 'g'), `$1=${REDACTED}`],
  // `"name": "value"` and `name: "value"` (JSON, YAML, object literals): quoted values only.
  [
    new RegExp(String.raw`(["']?\b(?:${SECRET_NAME})["']?\s*:\s*)("[^"\n]*"|'[^'\n]*')`, 'g'),
    `$1"${REDACTED}"`,
  ],
]

/** Builds the redactor for one export. */
export function createRedactor(opts: RedactorOptions = {}): Redactor {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...new Set(opts.secrets ?? [])]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length)
  const home = homePattern(opts.home)
  return (text) => {
    let out = text
    for (const secret of secrets) out = out.split(secret).join(REDACTED)
    for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement)
    return home === undefined ? out : out.replace(home, '~')
  }
}

/** The home folder where a path begins: not inside a longer name (`/home/al` in `/home/alice`). */
function homePattern(home: string | undefined): RegExp | undefined {
  if (home === undefined) return undefined
  const trimmed = home.replace(/\/+$/, '')
  if (!trimmed.startsWith('/') || trimmed.length < 2) return undefined
  const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w.-])`, 'g')
}

/**
 * The values in `env` a transcript must not show: those of the variables `names` (the endpoints'
 * `apiKeyEnv`), and of every variable whose name says it holds a credential (`*_API_KEY`,
 * `*_TOKEN`, `*_SECRET`, `*_PASSWORD`).
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv, names: Iterable<string>): string[] {
  const named = new Set(names)
  const looksSecret = new RegExp(`^(?:${SECRET_NAME})$`)
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && (named.has(name) || looksSecret.test(name)) ? [value] : [],
  )
}
