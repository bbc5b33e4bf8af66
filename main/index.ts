/**
 * The composition root of the desktop app: Electron's lifecycle in main/electron, the harness in
 * main/core, joined by main/electron/app.ts. Nothing else lives here.
 */
import { startApp } from './electron/app.js'

startApp()
