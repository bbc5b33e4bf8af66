/**
 * The error a tool, a guard or the workspace throws to give the model a code and a sentence
 * (`PATH_OUTSIDE_PROJECT`, `STALE_FILE`, ...). It lives this low so that the workspace, which is
 * below the tools, can throw it too; `tools/types.ts` re-exports it.
 */
export class ToolError extends Error {
  /**
   * The message still says what happened when the user stopped the call (the tool ended its
   * work on the stop and reports how far it got); otherwise a stop's own words replace it.
   */
  readonly standsWhenStopped: boolean

  constructor(
    readonly code: string,
    message: string,
    opts: { readonly standsWhenStopped?: boolean } = {},
  ) {
    super(message)
    this.name = 'ToolError'
    this.standsWhenStopped = opts.standsWhenStopped === true
  }
}
