import { describe, expect, it } from 'vitest'
import { menuItems } from './contextmenu'

const actions = (m: Parameters<typeof menuItems>[0]) => menuItems(m).map((i) => i.action)

describe('menuItems', () => {
  it('offers a link its items first', () => {
    expect(actions({ x: 0, y: 0, link: 'https://example.com/', selection: 'words' })).toEqual(['open-link', 'copy-link', 'copy'])
  })
  it('offers paste in a field', () => {
    expect(actions({ x: 0, y: 0, editable: true })).toEqual(['paste'])
  })
  it('offers navigation on the page itself', () => {
    expect(actions({ x: 0, y: 0 })).toEqual(['back', 'forward', 'reload'])
  })
})
