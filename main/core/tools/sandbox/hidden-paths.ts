/**
 * What a sandboxed command must not read even though the whole file system is readable: the
 * user's credentials, and the sockets of daemons that would run commands for it outside the
 * sandbox. The credentials are `../home-files.ts`'s list, the one the file tools use too. The list
 * is a best effort of well-known places, not a guarantee (README.md, limits).
 */
import { join } from 'node:path'
import { HOME_CREDENTIALS } from '../home-files.js'

/**
 * Sockets that execute on the user's behalf with no sandbox: the session bus (`systemd-run
 * --user`), the ssh, gpg and keyring agents (all under `/run/user/<uid>`), the system bus and
 * container engines (the docker socket is root on the host). A unix socket stays connectable on
 * a read-only mount, so only masking keeps them out.
 */
const DAEMON_SOCKETS = [
  '/run/user',
  '/run/dbus',
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd',
  '/run/podman',
]

/**
 * Every path a sandboxed command should not see, for the user whose home folder is `home`, plus
 * Bridle's own data folder (the log, spilled outputs and keys) when given. Pure: it lists
 * candidates whether or not they exist, so a store created later is still masked;
 * `sandboxCommand` skips the missing ones at each call.
 */
export function defaultHiddenPaths(home: string, dataDir?: string): string[] {
  return [
    ...HOME_CREDENTIALS.map((path) => join(home, path)),
    ...DAEMON_SOCKETS,
    ...(dataDir === undefined ? [] : [dataDir]),
  ]
}
