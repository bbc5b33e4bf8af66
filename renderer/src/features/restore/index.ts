export { RestoreDialog } from './restore-dialog'
