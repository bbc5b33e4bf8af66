import * as Tooltip from '@radix-ui/react-tooltip'
import type { ButtonHTMLAttributes, ReactNode } from 'react'

/**
 * A top-bar button: an icon and a short word, its keys in a tooltip. The word stays visible
 * (icons alone are guesses); the tooltip adds the shortcut, never the name.
 */
export function BarButton({
  icon,
  label,
  hint,
  ...rest
}: {
  readonly icon: ReactNode
  readonly label: string
  readonly hint: string
} & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'>) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>
        <button type="button" className="ghost bar-button" {...rest}>
          {icon}
          <span>{label}</span>
        </button>
      </Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" sideOffset={6}>
          {hint}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  )
}
