// The browser's keyboard shortcuts, as Chrome has them. shortcutOf is pure:
// the key event in, the command out (null for a key that is the page's or
// the field's own), so the window's one listener decides before the page
// view forwards the key or a field types it.

/** Command is what a shortcut does. */
export type Command =
  | 'focus-omnibox'
  | 'new-tab'
  | 'close-tab'
  | 'next-tab'
  | 'prev-tab'
  | 'reopen-tab'
  | 'reload'
  | 'hard-reload'
  | 'back'
  | 'forward'
  | 'find'
  | 'zoom-in'
  | 'zoom-out'
  | 'zoom-reset'
  | 'stop-run'
  | 'stop-loading'

/** KeyLike is the part of a KeyboardEvent a shortcut is read from. */
export interface KeyLike {
  key: string
  code: string
  ctrlKey: boolean
  shiftKey: boolean
  altKey: boolean
  metaKey: boolean
}

/** shortcutOf is the command the key press means, or null. */
export function shortcutOf(ev: KeyLike): Command | null {
  const ctrl = ev.ctrlKey || ev.metaKey
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key
  if (ev.altKey && !ctrl && !ev.shiftKey) {
    if (key === 'ArrowLeft') return 'back'
    if (key === 'ArrowRight') return 'forward'
    return null
  }
  if (key === 'F5') return ev.shiftKey || ctrl ? 'hard-reload' : 'reload'
  if (key === 'Escape' && ev.shiftKey && !ctrl) return 'stop-run'
  if (!ctrl || ev.altKey) return null
  // By code too: GTK names Shift+Tab ISO_Left_Tab.
  if (key === 'Tab' || ev.code === 'Tab') return ev.shiftKey ? 'prev-tab' : 'next-tab'
  if (key === 'PageDown' && !ev.shiftKey) return 'next-tab'
  if (key === 'PageUp' && !ev.shiftKey) return 'prev-tab'
  // Zoom keys by their code too: Ctrl+plus is Shift+= on most layouts.
  if (key === '+' || key === '=' || ev.code === 'NumpadAdd') return 'zoom-in'
  if (key === '-' || key === '_' || ev.code === 'NumpadSubtract') return 'zoom-out'
  if ((key === '0' || ev.code === 'Numpad0') && !ev.shiftKey) return 'zoom-reset'
  if (ev.shiftKey) {
    if (key === 't') return 'reopen-tab'
    if (key === 'r') return 'hard-reload'
    return null
  }
  switch (key) {
    case 'l': return 'focus-omnibox'
    case 't': return 'new-tab'
    case 'w': return 'close-tab'
    case 'r': return 'reload'
    case 'f': return 'find'
  }
  return null
}

/** neighbour is the tab dir (1 next, -1 previous) from active, wrapping. */
export function neighbour(ids: string[], active: string, dir: 1 | -1): string {
  if (ids.length === 0) return ''
  const i = ids.indexOf(active)
  if (i < 0) return ids[0]
  return ids[(i + dir + ids.length) % ids.length]
}

/** Security is what the omnibox says of a page's connection. */
export type Security = 'secure' | 'insecure' | 'local' | 'none'

/**
 * securityOf is a URL's connection as Chrome marks it: https secure, http
 * "Not secure" (a page on this machine is local, as Chrome does not warn
 * of it), anything else (about:, data:) unmarked.
 */
export function securityOf(url: string): Security {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'none'
  }
  if (u.protocol === 'https:' || u.protocol === 'wss:') return 'secure'
  if (u.protocol !== 'http:') return 'none'
  const h = u.hostname
  if (h === 'localhost' || h.endsWith('.localhost') || h === '[::1]' || /^127\./.test(h)) return 'local'
  return 'insecure'
}

/** shownURL is what the omnibox shows for a tab's URL: nothing for a blank tab. */
export function shownURL(url: string): string {
  return url === 'about:blank' ? '' : url
}
