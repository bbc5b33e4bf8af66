import type { SessionPanelProps } from '../feed'

/** Every event of the session, filters, details, the step/tool Gantt (placeholder: being built). */
export function TimelinePanel({ feed }: SessionPanelProps) {
  return <p className="muted">{feed.events.length} events</p>
}
