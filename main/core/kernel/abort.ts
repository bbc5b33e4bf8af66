/**
 * Reads an abort signal's flag now. After an `await` the signal may have been aborted, but
 * TypeScript narrowed `signal.aborted` to `false` at the last check and cannot see the change, so
 * the loop and the tool pipeline read it through this call. Lives in the kernel, the lowest layer
 * both use, so neither imports the other for it.
 */
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted
}
