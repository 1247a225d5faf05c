import { describe, expect, it } from 'vitest'
import { neighbour, securityOf, shortcutOf, shownURL, type KeyLike } from './shortcuts'

const k = (key: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key, code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...mods })
const ctrl = { ctrlKey: true }

describe('shortcutOf', () => {
  it("reads Chrome's tab and address shortcuts", () => {
    expect(shortcutOf(k('l', ctrl))).toBe('focus-omnibox')
    expect(shortcutOf(k('t', ctrl))).toBe('new-tab')
    expect(shortcutOf(k('w', ctrl))).toBe('close-tab')
    expect(shortcutOf(k('T', { ctrlKey: true, shiftKey: true }))).toBe('reopen-tab')
    expect(shortcutOf(k('Tab', ctrl))).toBe('next-tab')
    expect(shortcutOf(k('Tab', { ctrlKey: true, shiftKey: true }))).toBe('prev-tab')
    expect(shortcutOf(k('PageDown', ctrl))).toBe('next-tab')
    expect(shortcutOf({ ...k('ISO_Left_Tab', { ctrlKey: true, shiftKey: true }), code: 'Tab' })).toBe('prev-tab')
    expect(shortcutOf(k('f', ctrl))).toBe('find')
    expect(shortcutOf(k('L', { metaKey: true }))).toBe('focus-omnibox')
  })

  it('reads reload, history and zoom', () => {
    expect(shortcutOf(k('F5'))).toBe('reload')
    expect(shortcutOf(k('F5', { shiftKey: true }))).toBe('hard-reload')
    expect(shortcutOf(k('r', ctrl))).toBe('reload')
    expect(shortcutOf(k('R', { ctrlKey: true, shiftKey: true }))).toBe('hard-reload')
    expect(shortcutOf(k('ArrowLeft', { altKey: true }))).toBe('back')
    expect(shortcutOf(k('ArrowRight', { altKey: true }))).toBe('forward')
    expect(shortcutOf(k('+', { ctrlKey: true, shiftKey: true }))).toBe('zoom-in')
    expect(shortcutOf(k('=', ctrl))).toBe('zoom-in')
    expect(shortcutOf(k('-', ctrl))).toBe('zoom-out')
    expect(shortcutOf(k('0', ctrl))).toBe('zoom-reset')
  })

  it('leaves the page and the field their own keys', () => {
    for (const ev of [k('l'), k('a', ctrl), k('c', ctrl), k('v', ctrl), k('ArrowLeft'), k('Tab'), k('Escape'), k('w', { ctrlKey: true, altKey: true }), k('x', { altKey: true })]) {
      expect(shortcutOf(ev)).toBeNull()
    }
  })

  it('stops the run on Shift+Esc, never on Esc', () => {
    expect(shortcutOf(k('Escape', { shiftKey: true }))).toBe('stop-run')
    expect(shortcutOf(k('Escape'))).toBeNull()
  })
})

describe('neighbour', () => {
  it('wraps around the tabs', () => {
    expect(neighbour(['a', 'b', 'c'], 'c', 1)).toBe('a')
    expect(neighbour(['a', 'b', 'c'], 'a', -1)).toBe('c')
    expect(neighbour(['a', 'b', 'c'], 'b', 1)).toBe('c')
    expect(neighbour(['a'], 'gone', 1)).toBe('a')
    expect(neighbour([], 'a', 1)).toBe('')
  })
})

describe('securityOf', () => {
  it("marks connections as Chrome's omnibox does", () => {
    expect(securityOf('https://example.com/')).toBe('secure')
    expect(securityOf('http://example.com/')).toBe('insecure')
    expect(securityOf('http://127.0.0.1:8080/')).toBe('local')
    expect(securityOf('http://localhost/')).toBe('local')
    expect(securityOf('about:blank')).toBe('none')
    expect(securityOf('not a url')).toBe('none')
  })
  it('shows a blank tab as an empty box', () => {
    expect(shownURL('about:blank')).toBe('')
    expect(shownURL('https://a.example/')).toBe('https://a.example/')
  })
})
