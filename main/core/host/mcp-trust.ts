/**
 * Which projects' MCP servers the user trusts, by their fingerprint (`mcp-fingerprint.ts`: the
 * `.mcp.json` content and every project file its command lines name): any change is a new
 * question. Kept in `<data folder>/mcp-trust.json` (owner-only), one entry per project folder,
 * with the hash of each covered file so a new question can say what changed; a file that cannot
 * be read trusts nothing (the user is asked again), never everything. A record written before
 * files were covered holds the `.mcp.json` hash alone, matches no fingerprint, and so asks again.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from './files.js'
import type { McpFingerprint } from './mcp-fingerprint.js'

export const TRUST_FILE = 'mcp-trust.json'

const TrustFile = z.record(
  z.string(),
  z.object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    trustedAt: z.string(),
    /** `[server, path]` as JSON → the file's hash when trusted (null: it did not exist). */
    files: z.record(z.string(), z.string().nullable()).optional(),
  }),
)
type TrustFile = z.infer<typeof TrustFile>

export class McpTrust {
  constructor(private readonly dataDir: string) {}

  isTrusted(projectDir: string, sha256: string): boolean {
    return this.read()[projectDir]?.sha256 === sha256
  }

  /**
   * The covered files that differ from what the user trusted for this project (new, gone or
   * changed), as `<server>: <path>`; empty when nothing was trusted or only `.mcp.json` changed.
   */
  changedFiles(projectDir: string, fingerprint: McpFingerprint): string[] {
    const before = this.read()[projectDir]?.files
    if (before === undefined) return []
    const now = coveredMap(fingerprint)
    const keys = new Set([...Object.keys(before), ...Object.keys(now)])
    return [...keys]
      .filter((key) => before[key] !== now[key])
      .sort()
      .map((key) => (JSON.parse(key) as [string, string]).join(': '))
  }

  /** Trusts this fingerprint of the project's servers (and forgets any earlier one). */
  trust(projectDir: string, fingerprint: McpFingerprint, now = new Date()): void {
    const next: TrustFile = {
      ...this.read(),
      [projectDir]: {
        sha256: fingerprint.sha256,
        trustedAt: now.toISOString(),
        files: coveredMap(fingerprint),
      },
    }
    writeFileAtomic(this.path, [`${JSON.stringify(next, null, 2)}\n`])
  }

  /** Withdraws trust: the project's servers stop being started. */
  revoke(projectDir: string): void {
    const current = this.read()
    if (!(projectDir in current)) return
    const { [projectDir]: _dropped, ...rest } = current
    writeFileAtomic(this.path, [`${JSON.stringify(rest, null, 2)}\n`])
  }

  private get path(): string {
    return join(this.dataDir, TRUST_FILE)
  }

  private read(): TrustFile {
    if (!existsSync(this.path)) return {}
    try {
      return TrustFile.parse(JSON.parse(readFileSync(this.path, 'utf8')))
    } catch (error) {
      console.error(`[bridle] ${this.path} cannot be read; no project MCP file is trusted:`, error)
      return {}
    }
  }
}

function coveredMap(fingerprint: McpFingerprint): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  for (const [server, files] of Object.entries(fingerprint.files))
    for (const file of files) out[JSON.stringify([server, file.path])] = file.sha256
  return out
}
