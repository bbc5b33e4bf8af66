import { secretsFromEnv } from '../../export/redact.js'
import type { Config } from './config.js'
import type { CredentialStore } from './credentials.js'

/**
 * The secret values Bridle knows, for redaction: the keys in the environment variables the
 * endpoints name (`apiKeyEnv`) and the environment's other credential-looking variables, and
 * every key in the credential store this process can open (one sealed by the app cannot be
 * opened by the CLI; its shape may still be caught by the redactor's patterns).
 */
export function knownSecretValues(
  config: Config,
  credentials: CredentialStore,
  env: NodeJS.ProcessEnv,
  /** More variables holding keys (`--api-key-env` of `bridle serve`). */
  extraNames: readonly string[] = [],
): string[] {
  const names = Object.values(config.endpoints).flatMap((endpoint) =>
    endpoint.apiKeyEnv === undefined ? [] : [endpoint.apiKeyEnv],
  )
  names.push(...extraNames)
  const stored = credentials.endpointIds().flatMap((id) => {
    const key = credentials.reveal(id)
    return key.state === 'ready' ? [key.value] : []
  })
  return [...secretsFromEnv(env, names), ...stored]
}
