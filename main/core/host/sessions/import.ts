import { realpathSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, relative, sep } from 'node:path'
import type { ResultOf } from '../../../../protocol/contract.js'
import { ImportError } from '../../log/export.js'
import { FORMATS } from '../../import/formats/index.js'
import { importRead, readImportFile, scanSessions } from '../../import/index.js'
import type { ReadImport } from '../../import/index.js'
import type { Store } from '../../store/types.js'
import { HostError } from '../host.js'
import type { HostContext } from '../services.js'
import type { RecentProjects } from './projects.js'
import { resolveProjectDir } from './projects.js'
import type { SessionSummaries } from './summary.js'

/**
 * "Import…" over the bridge: the same scan, detection and writing as `bridle import`
 * (`main/core/import/`), for a user choosing in a dialog. The file is untrusted: the folder it
 * recorded is only reported (and whether it exists here); the session's folder is the one the
 * caller names in `import/run`, which the dialog never fills in with the recorded one unasked.
 */
export class SessionImports {
  constructor(
    private readonly ctx: HostContext,
    /** The user's home folder, where the other tools keep their sessions. */
    private readonly userHome: string,
    private readonly summaries: SessionSummaries,
    private readonly recent: RecentProjects,
    private readonly clock: () => number,
  ) {}

  scan(): ResultOf<'import/scan'> {
    const sessions = scanSessions(this.userHome).map((found) => ({
      path: found.path,
      displayPath: this.display(found.path),
      tool: found.source,
      label: found.label,
      modifiedAt: found.modifiedAt,
      bytes: found.bytes,
      ...(found.title === undefined ? {} : { title: found.title }),
      ...(found.projectDir === undefined ? {} : { recordedProjectDir: found.projectDir }),
    }))
    const folders = FORMATS.map((format) => ({
      tool: format.source,
      label: format.label,
      folder: this.display(join(this.userHome, ...format.folder)),
    }))
    return { sessions, folders }
  }

  inspect(path: string): ResultOf<'import/inspect'> {
    const file = this.resolveFile(path)
    const read = this.read(file, path)
    const recorded = read.recordedProjectDir
    return {
      path: file,
      displayPath: this.display(file),
      format: read.format,
      label: read.label,
      ...(recorded === undefined || recorded === '' ? {} : { recordedProjectDir: recorded }),
      recordedProjectDirExists:
        recorded !== undefined && isAbsolute(recorded) && isFolder(recorded),
    }
  }

  run(path: string, projectDir: string): ResultOf<'import/run'> {
    const file = this.resolveFile(path)
    const read = this.read(file, path)
    const dir = resolveProjectDir(this.expand(projectDir))
    const store: Store = this.ctx.store
    let result
    try {
      result = importRead(store, read, { projectDir: dir, file: basename(file), clock: this.clock })
    } catch (error) {
      // An export whose events do not check out is refused whole (one transaction).
      if (error instanceof ImportError) throw refused(path, error)
      throw error
    }
    this.recent.record(dir)
    const ids = [result.sessionId, ...result.forks]
    this.ctx.notify('sessions/changed', { sessionIds: ids })
    return {
      session: this.summaries.get(result.sessionId),
      forkIds: [...result.forks],
      label: read.label,
    }
  }

  /** The file's real path: absolute or `~/...`, existing, a file. */
  private resolveFile(path: string): string {
    const expanded = this.expand(path)
    if (!isAbsolute(expanded)) {
      throw new HostError(
        'INVALID_PATH',
        `${path} is not an absolute path; give the file's full path`,
      )
    }
    let real: string
    try {
      real = realpathSync(expanded)
    } catch {
      throw new HostError('NOT_FOUND', `there is no file ${path} (or it cannot be read)`)
    }
    if (!statSync(real).isFile()) {
      throw new HostError('INVALID_PATH', `${path} is a folder, not a session file`)
    }
    return real
  }

  /** The file read as a stream under the import limits (size, line length, records). */
  private read(file: string, asGiven: string): ReadImport {
    try {
      return readImportFile(file)
    } catch (error) {
      if (error instanceof ImportError) throw refused(asGiven, error)
      if (error instanceof Error && 'code' in error) {
        throw new HostError('INVALID_PATH', `${asGiven} cannot be read: ${error.message}`)
      }
      throw error
    }
  }

  private expand(path: string): string {
    return path === '~' || path.startsWith('~/') ? join(this.userHome, path.slice(1)) : path
  }

  /** The path with the home folder written `~`, as people recognise it. */
  private display(path: string): string {
    const inside = relative(this.userHome, path)
    if (inside === '') return '~'
    if (inside.startsWith('..') || isAbsolute(inside)) return path
    return `~/${inside.split(sep).join('/')}`
  }
}

function refused(path: string, error: ImportError): HostError {
  return new HostError('IMPORT_REFUSED', `${path} cannot be imported: ${error.message}`)
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    // Missing or unreadable: not a folder a session could use.
    return false
  }
}
