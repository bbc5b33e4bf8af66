import { useCallback } from 'react'
import type { BridleApi } from '../../../../../protocol/contract'

/**
 * The composer's `listFiles`: the open session's project files, or before a session exists the
 * project folder open in the sidebar's; undefined with neither (then `@` is plain text).
 */
export function useProjectFiles(
  api: BridleApi,
  sessionId: string | undefined,
  projectDir: string | undefined,
): (() => Promise<readonly string[]>) | undefined {
  const list = useCallback(async () => {
    const params = sessionId !== undefined ? { sessionId } : { projectDir: projectDir ?? '' }
    const result = await api.call('project/files', params)
    if (!result.ok) throw new Error(result.error.message)
    return result.value.paths
  }, [api, sessionId, projectDir])
  return sessionId === undefined && projectDir === undefined ? undefined : list
}
