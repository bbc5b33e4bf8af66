/**
 * Which projects' `.mcp.json` the user trusts, by the file's content hash: a changed file is a
 * new question. Kept in `<data folder>/mcp-trust.json` (owner-only), one entry per project folder;
 * a file that cannot be read trusts nothing (the user is asked again), never everything.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from './files.js'

export const TRUST_FILE = 'mcp-trust.json'

const TrustFile = z.record(
  z.string(),
  z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), trustedAt: z.string() }),
)
type TrustFile = z.infer<typeof TrustFile>

export class McpTrust {
  constructor(private readonly dataDir: string) {}

  isTrusted(projectDir: string, sha256: string): boolean {
    return this.read()[projectDir]?.sha256 === sha256
  }

  /** Trusts this content of the project's `.mcp.json` (and forgets any earlier content). */
  trust(projectDir: string, sha256: string, now = new Date()): void {
    const next: TrustFile = {
      ...this.read(),
      [projectDir]: { sha256, trustedAt: now.toISOString() },
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
