import * as RadixSelect from '@radix-ui/react-select'
import { Check, ChevronDown } from 'lucide-react'
import './select.css'

export interface SelectOption {
  readonly value: string
  readonly label: string
  /** Shown on hover, e.g. a project's full path behind its short name. */
  readonly title?: string
}

export interface SelectProps {
  /** The accessible name of the combobox (a visible label may stand next to it too). */
  readonly label: string
  /** A word shown before the trigger, for the eye only (the accessible name stays `label`). */
  readonly caption?: string
  /** An option's value, '' for "none" (an option may have the value ''), or undefined. */
  readonly value: string | undefined
  readonly options: readonly SelectOption[]
  readonly onValueChange: (value: string) => void
  /** Shown while no option is chosen. */
  readonly placeholder?: string
  readonly disabled?: boolean
  readonly id?: string
  readonly 'aria-invalid'?: boolean
  readonly 'aria-describedby'?: string | undefined
  readonly className?: string
}

/** Radix refuses '' as an item's value (it means "cleared"), so '' travels under this one. */
const NONE = '\u0000none'
const toItem = (value: string) => (value === '' ? NONE : value)
const fromItem = (value: string) => (value === NONE ? '' : value)

/**
 * The one drop-down of the renderer: a Radix Select (role combobox, named by `label`, keyboard
 * and typeahead as people expect), drawn the same in both themes instead of the browser's own.
 * It calls `onValueChange` only when the person picks another option.
 */
export function Select({
  label,
  caption,
  value,
  options,
  onValueChange,
  placeholder,
  disabled = false,
  className,
  ...wiring
}: SelectProps) {
  const isKnown = value !== undefined && options.some((option) => option.value === value)
  const select = (
    <RadixSelect.Root
      value={isKnown ? toItem(value) : ''}
      onValueChange={(next) => onValueChange(fromItem(next))}
      disabled={disabled}
    >
      <RadixSelect.Trigger
        className={className === undefined ? 'select-trigger' : `select-trigger ${className}`}
        aria-label={label}
        {...wiring}
      >
        <RadixSelect.Value placeholder={placeholder} />
        <RadixSelect.Icon className="select-icon">
          <ChevronDown size={14} aria-hidden="true" />
        </RadixSelect.Icon>
      </RadixSelect.Trigger>
      <RadixSelect.Portal>
        <RadixSelect.Content className="select-content" position="popper" sideOffset={4}>
          <RadixSelect.Viewport>
            {options.map((option) => (
              <RadixSelect.Item
                key={option.value}
                value={toItem(option.value)}
                className="select-item"
                {...(option.title === undefined ? {} : { title: option.title })}
              >
                <RadixSelect.ItemText>{option.label}</RadixSelect.ItemText>
                <RadixSelect.ItemIndicator className="select-check">
                  <Check size={14} aria-hidden="true" />
                </RadixSelect.ItemIndicator>
              </RadixSelect.Item>
            ))}
          </RadixSelect.Viewport>
        </RadixSelect.Content>
      </RadixSelect.Portal>
    </RadixSelect.Root>
  )
  if (caption === undefined) return select
  return (
    <span className="select-labelled">
      <span aria-hidden="true">{caption}</span>
      {select}
    </span>
  )
}
