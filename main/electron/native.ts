import { dialog, safeStorage } from 'electron'
import type { BrowserWindow } from 'electron'
import type { SecretBox } from '../core/host/services.js'

/**
 * The OS keychain through Electron's safeStorage, for API keys at rest. On Linux without a
 * keyring Electron falls back to `basic_text`, a key built into Chromium that protects nothing;
 * that counts as unavailable, so the Host keeps keys in its owner-only file and says so instead
 * of pretending they are encrypted.
 *
 * The sync calls are deprecated in favour of async ones; SecretBox is synchronous (the settings
 * service reads keys while resolving a model), so they stay until that interface changes.
 */
export function keychainSecretBox(): SecretBox {
  return {
    isAvailable: () =>
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- SecretBox is synchronous, see above.
      safeStorage.isEncryptionAvailable() &&
      (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text'),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- SecretBox is synchronous, see above.
    encrypt: (plain) => safeStorage.encryptString(plain),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- SecretBox is synchronous, see above.
    decrypt: (sealed) => safeStorage.decryptString(sealed),
  }
}

/**
 * The folder picker behind `project/open` without a path: undefined when the user cancels.
 * Attached to the window when there is one, so it is modal to the app rather than floating.
 */
export function folderPicker(
  parent: () => BrowserWindow | undefined,
): () => Promise<string | undefined> {
  return async () => {
    const options = {
      title: 'Open a project folder',
      properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[],
    }
    const window = parent()
    const chosen = window
      ? await dialog.showOpenDialog(window, options)
      : await dialog.showOpenDialog(options)
    return chosen.canceled ? undefined : chosen.filePaths[0]
  }
}
