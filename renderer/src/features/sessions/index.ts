/** What the sessions feature offers the rest of the renderer: the sidebar (picker, search, tree). */
export { Sidebar } from './sidebar'
