/**
 * What the "Restore files" dialog is asked to do (features/restore). Any view opens it through
 * the shell store's `openRestore`: the timeline's event, a chat message, a tree row, a fork's
 * banner, the "Undo restore" of a restore's row; Edit and Regenerate ask it first (`onDecide`).
 */

/** Edit/Regenerate's answer: restore then send, send without restoring, or neither. */
export type ResendChoice =
  | { readonly choice: 'restore'; readonly force: boolean }
  | { readonly choice: 'keep' }
  | { readonly choice: 'cancel' }

export type RestoreRequest =
  | {
      readonly kind: 'restore'
      readonly sessionId: string
      /** The files go back to how they were right after this event. */
      readonly toSeq: number
      /** The point in words, after "how they were": "right after event 12 (turn end)". */
      readonly where: string
    }
  | { readonly kind: 'undo'; readonly sessionId: string }
  | {
      /**
       * Edit or Regenerate from a point whose files have changed since: the dialog shows what
       * a restore to `toSeq` would do and returns the user's choice; the caller forks, restores
       * in the fork (so the branch's log says it) and sends.
       */
      readonly kind: 'resend'
      readonly sessionId: string
      readonly toSeq: number
      readonly where: string
      readonly onDecide: (choice: ResendChoice) => void
    }
