// First: zod must not probe `new Function` (the CSP forbids eval) before any schema is built.
import './bridge/zod-config'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app'
import { connectBridge } from './bridge'
import './styles.css'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

createRoot(root).render(
  <StrictMode>
    <App bridge={connectBridge()} />
  </StrictMode>,
)
