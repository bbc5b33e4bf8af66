import * as Tooltip from '@radix-ui/react-tooltip'
import type { ButtonHTMLAttributes, ReactNode } from 'react'

export interface IconButtonProps extends Omit<
  ButtonHTMLAttributes<HTMLButtonElement>,
  'children' | 'aria-label'
> {
  readonly icon: ReactNode
  /** The accessible name; it starts with the action's word ("Edit", "Copy", "Settings"). */
  readonly label: string
  /** The tooltip: what the name leaves out (the keys, the details), never the name again. */
  readonly hint: string
  /** The word shown next to the icon (the top bar), or the icon alone with the word as its name. */
  readonly isLabelShown?: boolean
}

/**
 * The renderer's one icon button: an icon, its word (shown, or as the accessible name only),
 * and a tooltip. Tooltips need the `Tooltip.Provider` at the shell's root.
 */
export function IconButton({
  icon,
  label,
  hint,
  isLabelShown = false,
  className,
  ...rest
}: IconButtonProps) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>
        <button
          type="button"
          className={className}
          {...(isLabelShown ? {} : { 'aria-label': label })}
          {...rest}
        >
          {icon}
          {isLabelShown && <span>{label}</span>}
        </button>
      </Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" sideOffset={5}>
          {hint}
          <Tooltip.Arrow className="tooltip-arrow" />
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  )
}
