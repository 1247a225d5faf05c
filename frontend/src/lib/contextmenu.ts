// The person's context menu: which items a right-click offers, from what
// it was on (browser.ContextMenu), in Chrome's order.
import type { ContextMenu } from './types.gen'

/** MenuAction is what a context menu item does. */
export type MenuAction = 'open-link' | 'copy-link' | 'copy' | 'paste' | 'back' | 'forward' | 'reload'

/** MenuItem is one row of the menu; rows of another section are set apart by a line. */
export interface MenuItem {
  action: MenuAction
  label: string
  section: number
  disabled?: boolean
}

/** menuItems are the rows for a right-click on menu's target. */
export function menuItems(menu: ContextMenu): MenuItem[] {
  const items: MenuItem[] = []
  if (menu.link) {
    items.push({ action: 'open-link', label: 'Open link in new tab', section: 0 })
    items.push({ action: 'copy-link', label: 'Copy link address', section: 0 })
  }
  if (menu.selection) items.push({ action: 'copy', label: 'Copy', section: 1 })
  if (menu.editable) items.push({ action: 'paste', label: 'Paste', section: 1 })
  if (!menu.link && !menu.selection && !menu.editable) {
    items.push({ action: 'back', label: 'Back', section: 2 })
    items.push({ action: 'forward', label: 'Forward', section: 2 })
    items.push({ action: 'reload', label: 'Reload', section: 2 })
  }
  return items
}
