/** What the sessions feature offers the rest of the renderer: the sidebar (picker, search, tree) and "Import…". */
export { Sidebar } from './sidebar'
export { ImportDialog } from './import-dialog'
