import { Group, Panel, Separator, useDefaultLayout } from 'react-resizable-panels'
import { useShell } from '../../state/shell-context'
import { Sidebar } from '../sessions'
import { ConnectionBanner, NoticeBar } from './connection'
import { ChatArea } from './chat-area'
import { Drawer } from './drawer'
import { TopBar } from './top-bar'

/**
 * Sidebar | chat | drawer, resizable. The drawer (the inspector) can be closed; the sidebar
 * and the chat are always there. Sizes the user drags to are remembered (in the renderer's
 * local storage, one layout with the drawer and one without), so the app reopens as it was.
 */
export function ShellLayout({ onHelp }: { readonly onHelp: () => void }) {
  const isDrawerOpen = useShell((s) => s.drawer.isOpen)
  const { defaultLayout, onLayoutChanged } = useDefaultLayout({
    id: 'bridle-shell',
    panelIds: isDrawerOpen ? ['sidebar', 'chat', 'drawer'] : ['sidebar', 'chat'],
    storage: localStorage,
    onlySaveAfterUserInteractions: true,
  })
  return (
    <div className="shell">
      <TopBar onHelp={onHelp} />
      <ConnectionBanner />
      <NoticeBar />
      <Group
        className="shell-panels"
        orientation="horizontal"
        defaultLayout={defaultLayout}
        onLayoutChanged={onLayoutChanged}
      >
        <Panel id="sidebar" defaultSize="22%" minSize="200px" maxSize="45%">
          <Sidebar />
        </Panel>
        <Separator className="resize-handle" />
        <Panel id="chat" minSize="320px">
          <ChatArea />
        </Panel>
        {isDrawerOpen && (
          <>
            <Separator className="resize-handle" />
            <Panel id="drawer" defaultSize="32%" minSize="260px" maxSize="60%">
              <Drawer />
            </Panel>
          </>
        )}
      </Group>
    </div>
  )
}
