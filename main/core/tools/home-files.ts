/**
 * The one list of what in the user's home folder is not ordinary project data: credential stores
 * (keys, tokens, cookies: reading one sends it to the model) and shell start-up files (they run in
 * every new shell on this machine). Used by the file tools (`protected-paths.ts`: asked before a
 * read or a write, skipped by searches), and by the sandbox (`sandbox/hidden-paths.ts` hides the
 * credentials from commands; `sandbox/locks.ts` locks the start-up files).
 *
 * These are credentials only at the home folder's level: `~/.npmrc` holds a token, a repository's
 * own `.npmrc` is project data. So a path counts only when it lies (as given, or where its links
 * lead) at one of these places under the real home folder, which a file tool can reach only when
 * the project is the home folder or contains it (`/`). The list is a best effort of well-known
 * places, not a guarantee (README.md, limits).
 */
import { homedir } from 'node:os'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { realpathSync } from 'node:fs'

/** Credential stores under the home folder: keys, tokens, cookies, password stores. */
export const HOME_CREDENTIALS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.pgpass',
  '.my.cnf',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.config/op',
  '.password-store',
  '.local/share/keyrings',
  '.config/bridle',
  // Other agents' sign-ins.
  '.codex/auth.json',
  '.claude/.credentials.json',
  // Browser profiles: their cookies are live sessions.
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
]

/** Files (and folders of them) a shell or the desktop session runs at start-up on this machine. */
export const SHELL_STARTUP: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.cshrc',
  '.tcshrc',
  '.kshrc',
  '.mkshrc',
  '.inputrc',
  '.xprofile',
  '.xinitrc',
  '.xsessionrc',
  '.config/fish/config.fish',
  '.config/fish/conf.d',
  '.config/fish/functions',
  '.config/autostart',
  '.config/systemd/user',
  '.config/environment.d',
]

const CREDENTIAL = 'a credential store in your home folder (keys, tokens, sign-ins)'
const STARTUP = 'a shell start-up file in your home folder: it runs in every new shell'

/** What a home path is, with the reason a person reads. */
export interface HomeFile {
  readonly kind: 'credential' | 'startup'
  readonly reason: string
}

/**
 * What `absolutePath` is when it lies at (or inside) a credential store or a start-up file of
 * the home folder `home` (default: this user's), or undefined. `realPath` is where the path's
 * links lead, when the caller knows it; both are judged. Case-sensitive, as home folders on Linux
 * are, except that a macOS home folder compares names without case.
 */
export function homeFileOf(
  absolutePath: string,
  realPath?: string,
  home: string = homedir(),
): HomeFile | undefined {
  for (const base of homeSpellings(home)) {
    for (const path of realPath === undefined ? [absolutePath] : [absolutePath, realPath]) {
      const rel = insideOf(base, path)
      if (rel === undefined) continue
      if (HOME_CREDENTIALS.some((entry) => covers(entry, rel))) {
        return { kind: 'credential', reason: CREDENTIAL }
      }
      if (SHELL_STARTUP.some((entry) => covers(entry, rel))) {
        return { kind: 'startup', reason: STARTUP }
      }
    }
  }
  return undefined
}

/**
 * Whether the folder `dir` holds the home folder (is it, or one of its parents): a project there
 * reaches the user's credentials and start-up files.
 */
export function containsHome(dir: string, home: string = homedir()): boolean {
  const target = realOrSelf(resolve(dir))
  return homeSpellings(home).some((base) => base === target || insideOf(target, base) !== undefined)
}

/**
 * The `entries` of the home folder (`HOME_CREDENTIALS` by default) as paths relative to `root` (a
 * project folder, given as its real path), `/`-separated: empty unless `root` is or holds the home
 * folder. A walk that does not follow links meets them only under these names.
 */
export function homePathsUnder(
  root: string,
  entries: readonly string[] = HOME_CREDENTIALS,
  home: string = homedir(),
): ReadonlySet<string> {
  const paths = new Set<string>()
  for (const base of homeSpellings(home)) {
    const at = base === root ? '' : insideOf(root, base)
    if (at === undefined) continue
    for (const entry of entries) paths.add(at === '' ? entry : `${at}/${entry}`)
  }
  return paths
}

/** Why a project in `dir`, which holds the home folder, needs the user's yes (CLI and app alike). */
export function homeProjectWarning(dir: string): string {
  return (
    `The project folder ${dir} is your home folder or holds it, so the agent can see all your files. ` +
    "Reading credentials (.ssh, .aws, .gnupg, ...) and changing shell start-up files (.bashrc, .profile, ...) are asked first and searches leave credentials out, but everything else counts as project data. Open a project's own folder instead if you can."
  )
}

/** `home` as given and as its real path (they differ when it is reached through a link). */
function homeSpellings(home: string): string[] {
  const given = resolve(home)
  const real = realOrSelf(given)
  return real === given ? [given] : [given, real]
}

function covers(entry: string, rel: string): boolean {
  const a = process.platform === 'darwin' ? rel.toLowerCase() : rel
  const e = process.platform === 'darwin' ? entry.toLowerCase() : entry
  return a === e || a.startsWith(`${e}/`)
}

/** `path` relative to `base` with `/` separators when strictly inside it. */
function insideOf(base: string, path: string): string | undefined {
  const rel = relative(base, path)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined
  return rel.split(sep).join('/')
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
