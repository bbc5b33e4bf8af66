import { useEffect, useState } from 'react'
import type { BridleApi } from '../../../../protocol/contract'

/**
 * Which of `paths` exist (file or folder) in the session's project now (`project/files-exist`), asked once per
 * mount, so a card scrolled back into view or a session reopened asks again. Undefined until the
 * answer comes, and when the bridge fails: then nothing is hidden on a guess.
 */
export function useFilesExist(
  api: BridleApi,
  sessionId: string,
  paths: readonly string[],
): ReadonlyMap<string, boolean> | undefined {
  const [answer, setAnswer] = useState<ReadonlyMap<string, boolean> | undefined>(undefined)
  const key = JSON.stringify(paths)
  useEffect(() => {
    const asked = JSON.parse(key) as string[]
    if (asked.length === 0) return
    let isCurrent = true
    void api
      .call('project/files-exist', { sessionId, paths: asked.slice(0, 200) })
      .then((result) => {
        if (!isCurrent || !result.ok) return
        setAnswer(new Map(asked.map((path, i) => [path, result.value.exists[i] ?? true])))
      })
    return () => {
      isCurrent = false
    }
  }, [api, sessionId, key])
  return answer
}
