/** What the sessions feature offers the rest of the renderer: the sidebar (picker, search, tree), "Import…" and "Export…". */
export { Sidebar } from './sidebar'
export { ImportDialog } from './import-dialog'
export { ExportDialog } from './export-dialog'
