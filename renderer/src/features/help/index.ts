/** What the help feature offers the rest of the renderer: the shortcuts-and-about overlay. */
export { HelpOverlay } from './help-overlay'
export { helpRows } from './help-overlay'
