// Dragging a tab from the sidebar: the tab's id travels in the drag's data
// under its own type, so only tab drags are accepted by the drop targets.
export const tabMime = 'application/x-vroom-tab'

export function isTabDrag(ev: DragEvent): boolean {
  return ev.dataTransfer?.types.includes(tabMime) ?? false
}

export function droppedTab(ev: DragEvent): string {
  return ev.dataTransfer?.getData(tabMime) ?? ''
}
