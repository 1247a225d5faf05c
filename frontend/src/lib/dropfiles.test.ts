import { describe, expect, it } from 'vitest'
import { addPaths, fileName, isFileDrag } from './dropfiles.svelte'

describe('dropped files', () => {
  it('names a chip by the file name', () => {
    expect(fileName('/home/ada/notes.txt')).toBe('notes.txt')
    expect(fileName('/tmp/dir/')).toBe('dir')
  })
  it('adds each path once, in order', () => {
    expect(addPaths(['/a'], ['/b', '/a', '', '/c'])).toEqual(['/a', '/b', '/c'])
  })
  it('takes a file manager\'s bare uri-list for files, not a tab', () => {
    const drag = (types: string[]) => ({ dataTransfer: { types } }) as unknown as DragEvent
    expect(isFileDrag(drag(['text/uri-list']))).toBe(true)
    expect(isFileDrag(drag(['Files']))).toBe(true)
    expect(isFileDrag(drag(['application/x-vroom-tab', 'text/plain']))).toBe(false)
  })
})
