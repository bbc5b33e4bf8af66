/**
 * The composer's attachments and its `@` completion, as one hook so composer.tsx only wires it
 * in. The text stays the composer's; this hook reads it at the caret and rewrites it on a pick.
 *
 * The project's file list is fetched when a mention opens (the host keeps it a few seconds, so
 * typing does not walk the folder again) and matched here on every keystroke. The project's MCP
 * resources follow the files in the same list (the composer fetches them on `onMention`); one
 * picked is attached as a `resource`, which the host reads at send time.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react'
import type { KeyboardEvent } from 'react'
import { MAX_ATTACHMENTS } from '../../../../../protocol/attachments'
import type { AttachmentInput } from '../../../../../protocol/attachments'
import type { McpResourceView } from '../../../../../protocol/mcp'
import { applyPick, mentionAt, matchPaths } from './complete'
import type { MentionQuery } from './complete'
import { imageFilesOf, readImage } from './images'
import { isTextMime, matchResources } from './resources'

/** An attachment in the composer: what `turn/send` takes, plus a name for its chip. */
export type ComposerAttachment = AttachmentInput & { readonly name: string; readonly key: string }

/** An option of the `@` list: a project file, or an MCP resource (disabled when not text). */
export type CompletionItem =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'resource'; readonly resource: McpResourceView; readonly isText: boolean }

export interface AttachOptions {
  readonly text: string
  readonly setText: (text: string) => void
  /** The project's files; absent where there is no project (then `@` completes nothing). */
  readonly listFiles?: () => Promise<readonly string[]>
  /** The project's MCP resources, listed after the files; undefined until known. */
  readonly resources?: readonly McpResourceView[] | undefined
  /** Called when a mention opens (the composer fetches the resources then). */
  readonly onMention?: () => void
}

export function useAttachments({ text, setText, listFiles, resources, onMention }: AttachOptions) {
  const listId = useId()
  const [attachments, setAttachments] = useState<ComposerAttachment[]>([])
  const [error, setError] = useState<string>()
  const [mention, setMention] = useState<MentionQuery>()
  const [paths, setPaths] = useState<readonly string[]>()
  const [active, setActive] = useState(0)
  const inputRef = useRef<HTMLTextAreaElement>(null)
  const serial = useRef(0)

  const matches: CompletionItem[] = mention
    ? [
        ...(paths ? matchPaths(paths, mention.query) : []).map((path): CompletionItem => ({
          kind: 'file',
          path,
        })),
        ...matchResources(resources ?? [], mention.query).map((resource): CompletionItem => ({
          kind: 'resource',
          resource,
          isText: isTextMime(resource.mimeType),
        })),
      ]
    : []
  const isOpen = mention !== undefined && matches.length > 0

  // Open a mention: fetch the list once per mention (the host caches it briefly).
  const isMentioning = mention !== undefined
  useEffect(() => {
    if (!isMentioning || !listFiles) return
    onMention?.()
    const mine = ++serial.current
    listFiles().then(
      (list) => mine === serial.current && setPaths(list),
      // No list (the bridge is down, the folder gone): `@` stays plain text.
      () => undefined,
    )
  }, [isMentioning, listFiles, onMention])

  const track = useCallback(
    (value: string, caret: number) => {
      const next = listFiles ? mentionAt(value, caret) : undefined
      setMention(next)
      if (next?.query !== mention?.query) setActive(0)
    },
    [listFiles, mention?.query],
  )

  const add = useCallback((attachment: ComposerAttachment) => {
    setAttachments((list) => {
      if (list.some((a) => a.key === attachment.key)) return list
      if (list.length >= MAX_ATTACHMENTS) {
        setError(`A message can carry at most ${MAX_ATTACHMENTS} attachments`)
        return list
      }
      return [...list, attachment]
    })
  }, [])

  const pick = (item: CompletionItem) => {
    if (!mention || (item.kind === 'resource' && !item.isText)) return
    const next = applyPick(text, mention, item.kind === 'file' ? item.path : item.resource.uri)
    setText(next.text)
    setMention(undefined)
    if (item.kind === 'file') {
      add({ kind: 'file', path: item.path, name: item.path, key: `file:${item.path}` })
    } else {
      const { server, uri } = item.resource
      add({ kind: 'resource', server, uri, name: uri, key: `resource:${server}:${uri}` })
    }
    requestAnimationFrame(() => inputRef.current?.setSelectionRange(next.caret, next.caret))
  }

  /** Handles the list's keys; true when the key was the list's. */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!isOpen) return false
    switch (event.key) {
      case 'ArrowDown':
        setActive((i) => (i + 1) % matches.length)
        break
      case 'ArrowUp':
        setActive((i) => (i - 1 + matches.length) % matches.length)
        break
      case 'Enter':
      case 'Tab': {
        if (event.nativeEvent.isComposing) return false
        const item = matches[Math.min(active, matches.length - 1)]
        if (item !== undefined) pick(item)
        break
      }
      case 'Escape':
        setMention(undefined)
        break
      default:
        return false
    }
    event.preventDefault()
    // Escape here closes the list; it must not also stop the running turn.
    event.stopPropagation()
    return true
  }

  const addImages = async (data: DataTransfer | null): Promise<boolean> => {
    const files = imageFilesOf(data)
    if (files.length === 0) return false
    setError(undefined)
    for (const file of files) {
      const read = await readImage(file)
      if (!read.ok) {
        setError(read.message)
        continue
      }
      const { name, ...image } = read.image
      add({ ...image, name, key: `image:${image.data.length}:${image.data.slice(-64)}` })
    }
    return true
  }

  return {
    inputRef,
    attachments,
    error,
    /** What to send: the attachments without their labels. */
    toSend: (): AttachmentInput[] =>
      attachments.map((a): AttachmentInput =>
        a.kind === 'file'
          ? { kind: 'file', path: a.path }
          : a.kind === 'image'
            ? { kind: 'image', mime: a.mime, data: a.data }
            : { kind: 'resource', server: a.server, uri: a.uri },
      ),
    remove: (key: string) => setAttachments((list) => list.filter((a) => a.key !== key)),
    /** After a send: empty; after a refused send: put back what was sent. */
    reset: (restored: ComposerAttachment[] = []) => {
      setAttachments(restored)
      setError(undefined)
    },
    track,
    onKeyDown,
    addImages,
    completion: {
      listId,
      isOpen,
      matches,
      active: Math.min(active, Math.max(0, matches.length - 1)),
      optionId: (index: number) => `${listId}-option-${index}`,
      pick,
      setActive,
    },
  }
}
