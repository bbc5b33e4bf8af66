import { useEffect } from 'react'
import { Group, Panel, Separator, useDefaultLayout } from 'react-resizable-panels'
import { useShell } from '../../state/shell-context'
import { Sidebar } from '../sessions'
import { ConnectionBanner, NoticeBar } from './connection'
import { ChatArea } from './chat-area'
import { Drawer } from './drawer'
import { SettingsPage } from './settings-page'
import { Sheet } from './sheet'
import { TopBar } from './top-bar'
import { useIsNarrow } from './use-narrow'

/**
 * The top bar over either the settings page or sidebar | chat | inspector. Wide windows keep
 * the sidebar and the inspector beside the chat, resizable, each closable; under 1100 px they
 * open as sheets over the chat from the same top-bar buttons. Sizes the user drags to are
 * remembered (in the renderer's local storage, one layout per set of open panels). The chat
 * keeps its place in the tree in both widths, so crossing 1100 px does not remount it (an open
 * popover, a half-picked approval and the scroll position stay).
 */
export function ShellLayout({ onHelp }: { readonly onHelp: () => void }) {
  const isNarrow = useIsNarrow()
  const page = useShell((s) => s.page)
  const toggleSidebar = useShell((s) => s.toggleSidebar)
  const setSidebarSheet = useShell((s) => s.setSidebarSheet)
  const isSheetOpen = useShell((s) => s.sidebar.isSheetOpen)
  const onToggleSidebar = () => (isNarrow ? setSidebarSheet(!isSheetOpen) : toggleSidebar())
  return (
    <div className="shell">
      <TopBar isNarrow={isNarrow} onToggleSidebar={onToggleSidebar} onHelp={onHelp} />
      <ConnectionBanner />
      <NoticeBar />
      {page === 'settings' ? <SettingsPage /> : <Panels isNarrow={isNarrow} />}
    </div>
  )
}

function Panels({ isNarrow }: { readonly isNarrow: boolean }) {
  const isDrawerOpen = useShell((s) => s.drawer.isOpen)
  const isSidebarOpen = useShell((s) => s.sidebar.isOpen)
  const hasSidebar = !isNarrow && isSidebarOpen
  const hasDrawer = !isNarrow && isDrawerOpen
  const panelIds = [...(hasSidebar ? ['sidebar'] : []), 'chat', ...(hasDrawer ? ['drawer'] : [])]
  const { defaultLayout, onLayoutChanged } = useDefaultLayout({
    id: 'bridle-shell',
    panelIds,
    storage: localStorage,
    onlySaveAfterUserInteractions: true,
  })
  return (
    <>
      <Group
        className={isNarrow ? 'shell-panels shell-narrow' : 'shell-panels'}
        orientation="horizontal"
        defaultLayout={defaultLayout}
        onLayoutChanged={onLayoutChanged}
      >
        {hasSidebar && (
          <>
            <Panel id="sidebar" defaultSize="22%" minSize="220px" maxSize="40%">
              <Sidebar />
            </Panel>
            <Separator className="resize-handle" />
          </>
        )}
        <Panel id="chat" minSize="360px">
          <ChatArea />
        </Panel>
        {hasDrawer && (
          <>
            <Separator className="resize-handle" />
            <Panel id="drawer" defaultSize="32%" minSize="300px" maxSize="60%">
              <Drawer />
            </Panel>
          </>
        )}
      </Group>
      {isNarrow && <NarrowSheets />}
    </>
  )
}

/** Under 1100 px the sessions and the inspector are sheets over the chat. */
function NarrowSheets() {
  const isDrawerOpen = useShell((s) => s.drawer.isOpen)
  const toggleDrawer = useShell((s) => s.toggleDrawer)
  const isSheetOpen = useShell((s) => s.sidebar.isSheetOpen)
  const setSidebarSheet = useShell((s) => s.setSidebarSheet)
  const openSessionId = useShell((s) => s.feed?.sessionId)
  // Picking a session in the sheet is done with it: show the chat.
  useEffect(() => setSidebarSheet(false), [openSessionId, setSidebarSheet])
  return (
    <>
      <Sheet side="left" title="Sessions" isOpen={isSheetOpen} onOpenChange={setSidebarSheet}>
        <Sidebar />
      </Sheet>
      <Sheet
        side="right"
        title="Inspector"
        isOpen={isDrawerOpen}
        onOpenChange={(isOpen) => isOpen !== isDrawerOpen && toggleDrawer()}
      >
        <Drawer />
      </Sheet>
    </>
  )
}
