/**
 * Whether commands can run in a bubblewrap sandbox on this machine. Finding `bwrap` is not
 * enough: kernels and AppArmor policies often refuse the user namespaces it needs, and that only
 * shows when a sandbox is really started. So the probe starts one with the same flags commands
 * get (`sandboxCommand`) and checks what it did.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { sandboxCommand } from './bwrap.js'
import {
  forgetCachedProbe,
  probeFingerprint,
  readCachedProbe,
  writeCachedProbe,
} from './probe-cache.js'

export type SandboxStatus =
  | {
      readonly available: true
      readonly bwrap: string
      readonly version: string
      /** util-linux `setpriv` with `--pdeathsig`, when it works here (see `sandboxCommand`). */
      readonly setpriv?: string
      /**
       * Remembered from an earlier run (`cacheFile`), not tested by this process: a sandbox
       * that then fails to start calls for `reprobeSandbox`.
       */
      readonly isCached?: boolean
    }
  | { readonly available: false; readonly why: string }

export interface ProbeOptions {
  /** The bwrap to try: a path, or a name looked up on PATH; default `bwrap`. */
  readonly bwrap?: string
  /** How long the test sandbox may take; default `DEFAULT_PROBE_TIMEOUT_MS`. */
  readonly timeoutMs?: number
  /**
   * A file that remembers a working sandbox between runs (`probe-cache.ts`), so a start skips
   * the test sandbox while nothing that could change the answer has changed; in the user's
   * cache folder. Without it every process probes.
   */
  readonly cacheFile?: string
}

/** A sandbox starts in tens of milliseconds; seconds mean something hangs, not a slow machine. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5000

const INSTALL = 'install the bubblewrap package, e.g. apt install bubblewrap'
const PROBE_FILE = 'sandbox-probe'
/** Run inside: write to the project, and check that no capability is left. */
const PROBE_SCRIPT = `echo ok > ${PROBE_FILE} && grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status`

const probed = new Map<string, Promise<SandboxStatus>>()

/**
 * The sandbox status for `opts.bwrap`, probed once per path for the life of the process (a
 * failure too: installing bubblewrap takes a restart to notice), or taken from `opts.cacheFile`
 * when an earlier run found it working on an unchanged machine. Never rejects: every failure is
 * `{ available: false, why }`, one sentence that says what is wrong and how to fix it.
 */
export function probeSandbox(opts: ProbeOptions = {}): Promise<SandboxStatus> {
  const key = probeKey(opts)
  let status = probed.get(key)
  if (!status) {
    status = probe(opts.bwrap ?? 'bwrap', opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, {
      cacheFile: opts.cacheFile,
      isFresh: false,
    })
    probed.set(key, status)
  }
  return status
}

/**
 * Probes again for real, ignoring and forgetting what was remembered: for a sandbox reported
 * working (`isCached`) that then failed to start. Later `probeSandbox` calls get this answer.
 */
export function reprobeSandbox(opts: ProbeOptions = {}): Promise<SandboxStatus> {
  const status = probe(opts.bwrap ?? 'bwrap', opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, {
    cacheFile: opts.cacheFile,
    isFresh: true,
  })
  probed.set(probeKey(opts), status)
  return status
}

function probeKey(opts: ProbeOptions): string {
  return JSON.stringify([opts.bwrap ?? 'bwrap', opts.cacheFile ?? null])
}

interface CacheUse {
  readonly cacheFile: string | undefined
  /** Do not take the answer from the file (and forget it there). */
  readonly isFresh: boolean
}

function probe(requested: string, timeoutMs: number, cache: CacheUse): Promise<SandboxStatus> {
  return probeOrThrow(requested, timeoutMs, cache).catch((error: unknown) =>
    unavailable(
      `the sandbox could not be tested (${quote(error instanceof Error ? error.message : String(error))}); check that the temporary folder is writable`,
    ),
  )
}

async function probeOrThrow(
  requested: string,
  timeoutMs: number,
  cache: CacheUse,
): Promise<SandboxStatus> {
  if (process.platform !== 'linux') {
    return unavailable(
      'bubblewrap exists only on Linux; on macOS and Windows commands run without a sandbox',
    )
  }
  const bwrap = locate(requested)
  if (bwrap === undefined) {
    return unavailable(`bubblewrap (bwrap) was not found on PATH; ${INSTALL}`)
  }
  if (!existsSync(bwrap)) return unavailable(`${bwrap} does not exist; ${INSTALL}`)
  try {
    accessSync(bwrap, constants.X_OK)
  } catch {
    return unavailable(`${bwrap} is not executable; ${INSTALL} or make the file executable`)
  }
  const setprivPath = locate('setpriv')
  const fingerprint =
    cache.cacheFile === undefined ? undefined : probeFingerprint(bwrap, setprivPath, probeArgs())
  if (cache.cacheFile !== undefined && fingerprint !== undefined) {
    if (cache.isFresh) {
      forgetCachedProbe(cache.cacheFile, fingerprint)
    } else {
      const hit = readCachedProbe(cache.cacheFile, fingerprint)
      if (hit && (!hit.hasSetpriv || setprivPath !== undefined)) {
        return {
          available: true,
          bwrap,
          version: hit.version,
          ...(hit.hasSetpriv && setprivPath !== undefined ? { setpriv: setprivPath } : {}),
          isCached: true,
        }
      }
    }
  }

  const version = await run(bwrap, ['--version'], timeoutMs)
  if (version.timedOut) return timedOut(bwrap, timeoutMs)
  const match = /^bubblewrap (\S+)/m.exec(version.stdout)
  if (!match?.[1]) {
    const said = quote(version.stderr || version.stdout || version.error || 'nothing')
    return unavailable(`${bwrap} is not bubblewrap (bwrap --version said ${said}); ${INSTALL}`)
  }

  const project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-sandbox-probe-')))
  try {
    const { file, args } = sandboxCommand({
      bwrap,
      projectDir: project,
      cwd: project,
      shell: '/bin/sh',
      command: PROBE_SCRIPT,
      network: false,
      hide: [],
      readOnly: [],
    })
    const result = await run(file, args, timeoutMs)
    if (result.timedOut) return timedOut(bwrap, timeoutMs)
    if (result.stderr.startsWith('bwrap:')) return refused(result.stderr)
    if (result.code !== 0 || !existsSync(join(project, PROBE_FILE))) {
      const said = quote(result.stderr || result.error || `exit code ${result.code ?? 'none'}`)
      return unavailable(
        `bubblewrap started, but the test sandbox did not work as expected (${said}); commands would not be contained, so please report this with your bwrap version`,
      )
    }
    const setpriv = await deathGuard(setprivPath, timeoutMs)
    if (cache.cacheFile !== undefined && fingerprint !== undefined) {
      writeCachedProbe(cache.cacheFile, fingerprint, {
        version: match[1],
        hasSetpriv: setpriv !== undefined,
      })
    }
    return { available: true, bwrap, version: match[1], ...(setpriv ? { setpriv } : {}) }
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}

/**
 * The probe's bwrap arguments for a stand-in project, part of the cache key: a Bridle whose
 * sandbox flags changed does not trust what an older one found.
 */
function probeArgs(): string[] {
  return sandboxCommand({
    bwrap: 'bwrap',
    projectDir: '/',
    cwd: '/',
    shell: '/bin/sh',
    command: PROBE_SCRIPT,
    network: false,
    hide: [],
    readOnly: [],
  }).args
}

/**
 * `setpriv` if it is on PATH and takes `--pdeathsig` (util-linux 2.33 and later). Without it
 * sandboxes still run; only the moment before bwrap arms `--die-with-parent` is unguarded.
 */
async function deathGuard(
  setpriv: string | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  if (setpriv === undefined) return undefined
  const result = await run(setpriv, ['--pdeathsig', 'KILL', '--', 'true'], timeoutMs)
  return result.code === 0 ? setpriv : undefined
}

/** bwrap itself failed to set the sandbox up: nearly always user namespaces being refused. */
function refused(stderr: string): SandboxStatus {
  const isNamespace = /namespace|uid map|gid map|permission denied|not permitted/i.test(stderr)
  const cause = isNamespace
    ? 'the system refuses unprivileged user namespaces; allow them with sysctl kernel.unprivileged_userns_clone=1 (Debian) or, on Ubuntu 23.10 and later, kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap'
    : 'run bwrap --ro-bind / / true in a terminal to see why'
  return unavailable(`bubblewrap could not create a sandbox (${quote(stderr)}): ${cause}`)
}

function timedOut(bwrap: string, timeoutMs: number): SandboxStatus {
  return unavailable(
    `${bwrap} did not finish a test sandbox within ${timeoutMs / 1000} s; check that bwrap --ro-bind / / true returns at once in a terminal`,
  )
}

function unavailable(why: string): SandboxStatus {
  return { available: false, why }
}

/** The first line of what a program said, trimmed and quoted. */
function quote(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return `"${line.length > 200 ? `${line.slice(0, 200)}…` : line}"`
}

/** An absolute path for `name`: as given when it holds a slash, else the first on PATH. */
function locate(name: string): string | undefined {
  if (name.includes('/')) return resolve(name)
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not here (or not executable); keep looking.
    }
  }
  return undefined
}

interface RunResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  /** Why it could not be started, when it could not. */
  readonly error?: string
}

/**
 * Runs `file` with a closed stdin and a bare environment, and collects its output. After
 * `timeoutMs` it is killed and the result settles at once, without waiting for the pipes: a
 * hung grandchild may hold them (bwrap's own are killed with it, by `--die-with-parent`).
 */
function run(file: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((settle) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      child.stdout.destroy()
      child.stderr.destroy()
      settle({ code: null, stdout, stderr, timedOut: true })
    }, timeoutMs)
    // A promise settles once: whichever of these comes first wins.
    child.once('error', (error) => {
      clearTimeout(timer)
      settle({ code: null, stdout, stderr, timedOut: false, error: error.message })
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      settle({ code, stdout, stderr, timedOut: false })
    })
  })
}
