/**
 * The MCP resources the `@` completion offers after the project's files, with no React in it.
 * Only text can be attached (the host reads a resource's text at send time and refuses a binary
 * one), so a resource whose type says it is not text is listed but cannot be picked.
 *
 * Ranking, best first: the URI starts with the query, the URI or the resource's name contains
 * it, the server's name contains it (so `@fixture` lists everything the server `fixture` has).
 * Within a rank, by URI.
 */
import type { McpResourceView } from '../../../../../protocol/mcp'

/** Resources shown at most, after the files. */
export const MAX_RESOURCES = 20

/** Whether a resource of `mimeType` is text; with no type given the host finds out at send time. */
export function isTextMime(mimeType: string | undefined): boolean {
  if (mimeType === undefined) return true
  const type = mimeType.split(';')[0]?.trim().toLowerCase() ?? ''
  return (
    type.startsWith('text/') ||
    /^application\/([\w.-]+\+)?(json|xml)$/.test(type) ||
    type === 'application/javascript' ||
    type === 'application/x-yaml' ||
    type === 'application/yaml'
  )
}

/** What a resource reads as in the list: its URI and where it comes from. */
export const resourceLabel = (resource: Pick<McpResourceView, 'uri' | 'server'>): string =>
  `${resource.uri} · MCP ${resource.server}`

/** The resources that match `query`, best first, at most `limit`. */
export function matchResources(
  resources: readonly McpResourceView[],
  query: string,
  limit: number = MAX_RESOURCES,
): McpResourceView[] {
  const q = query.toLowerCase()
  const ranked: { resource: McpResourceView; rank: number }[] = []
  for (const resource of resources) {
    const rank = rankOf(resource, q)
    if (rank !== undefined) ranked.push({ resource, rank })
  }
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      (a.resource.uri < b.resource.uri ? -1 : a.resource.uri > b.resource.uri ? 1 : 0),
  )
  return ranked.slice(0, limit).map((r) => r.resource)
}

function rankOf(resource: McpResourceView, query: string): number | undefined {
  if (query === '') return 0
  const uri = resource.uri.toLowerCase()
  if (uri.startsWith(query)) return 0
  if (uri.includes(query) || resource.name.toLowerCase().includes(query)) return 1
  if (resource.server.toLowerCase().includes(query)) return 2
  return undefined
}
