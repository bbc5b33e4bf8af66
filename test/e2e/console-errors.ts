/**
 * Radix injects two fixed <style> elements that the strict CSP (style-src 'self') refuses, each
 * named here by its hash: the hidden-scrollbar rule of a Select's list, and the scroll lock of
 * an open Select or modal Dialog (react-remove-scroll; with no scrollbar gap, as in headless
 * Chromium). Refusing them costs nothing: renderer/src/ui/select.css carries the scrollbar rule
 * and the page simply stays scrollable. Any other error, any other refused style, still counts.
 */
const REFUSED_RADIX_STYLES = [
  'sha256-441zG27rExd4/il+NvIqyL8zFx5XmyNQtE381kSkUJk=',
  'sha256-nzTgYzXYDNe6BAHiiI7NNlfK8n/auuOAhh2t92YvuXo=',
]

/** The console errors that are not one of Radix's refused styles above. */
export function unexpectedErrors(errors: readonly string[]): readonly string[] {
  return errors.filter(
    (text) =>
      !(text.includes("style-src 'self'") && REFUSED_RADIX_STYLES.some((h) => text.includes(h))),
  )
}
