import type { SessionPanelProps } from '../feed'

/** The session's compaction checkpoints (placeholder: being built). */
export function CheckpointsPanel({ feed }: SessionPanelProps) {
  const count = feed.events.filter((event) => event.type === 'compaction/checkpoint').length
  return <p className="muted">{count} checkpoint(s)</p>
}
