/**
 * The tree's row icons as inline SVG: emoji and symbol glyphs depend on the OS's fonts (Debian's
 * Chromium drew boxes), these draw the same everywhere and take the text colour.
 */
const common = {
  width: 14,
  height: 14,
  viewBox: '0 0 16 16',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.5,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
} as const

export function PencilIcon() {
  return (
    <svg {...common}>
      <path d="M11 2.5l2.5 2.5L6 12.5H3.5V10z" />
    </svg>
  )
}

export function ForkIcon() {
  return (
    <svg {...common}>
      <circle cx="4.5" cy="3.5" r="1.5" />
      <circle cx="11.5" cy="3.5" r="1.5" />
      <circle cx="4.5" cy="12.5" r="1.5" />
      <path d="M4.5 5v6M11.5 5c0 3-7 3-7 6" />
    </svg>
  )
}

export function TrashIcon() {
  return (
    <svg {...common}>
      <path d="M2.5 4.5h11M6 4.5V3h4v1.5M4 4.5l.7 8.5h6.6l.7-8.5" />
    </svg>
  )
}
