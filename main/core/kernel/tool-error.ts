/**
 * The error a tool, a guard or the workspace throws to give the model a code and a sentence
 * (`PATH_OUTSIDE_PROJECT`, `STALE_FILE`, ...). It lives this low so that the workspace, which is
 * below the tools, can throw it too; `tools/types.ts` re-exports it.
 */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ToolError'
  }
}
