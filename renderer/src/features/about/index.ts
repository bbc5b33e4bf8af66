/** What the about feature offers the rest of the renderer: the panel saying what this Bridle is. */
export { AppInfoPanel } from './app-info-panel'
