import { describe, expect, it } from 'vitest'
import { addPaths, fileName } from './dropfiles.svelte'

describe('dropped files', () => {
  it('names a chip by the file name', () => {
    expect(fileName('/home/ada/notes.txt')).toBe('notes.txt')
    expect(fileName('/tmp/dir/')).toBe('dir')
  })
  it('adds each path once, in order', () => {
    expect(addPaths(['/a'], ['/b', '/a', '', '/c'])).toEqual(['/a', '/b', '/c'])
  })
})
