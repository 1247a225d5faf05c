import { describe, expect, it } from 'vitest'
import { classify } from './omnibox'

describe('classify', () => {
  it('finds nothing in blank text', () => {
    expect(classify('')).toEqual({ kind: 'empty' })
    expect(classify('  \t ')).toEqual({ kind: 'empty' })
  })

  it('keeps an address with a scheme as typed', () => {
    for (const url of ['https://example.com/a?b=c', 'http://localhost:8080', 'file:///tmp/x.html', 'about:blank', 'chrome://version', 'HTTPS://EXAMPLE.COM']) {
      expect(classify(url)).toEqual({ kind: 'url', url })
    }
  })

  it('opens a bare host over https', () => {
    expect(classify('example.com')).toEqual({ kind: 'url', url: 'https://example.com' })
    expect(classify('  github.com/octocat  ')).toEqual({ kind: 'url', url: 'https://github.com/octocat' })
    expect(classify('docs.example.co.uk:8443/path')).toEqual({ kind: 'url', url: 'https://docs.example.co.uk:8443/path' })
    expect(classify('10.0.0.7:3000')).toEqual({ kind: 'url', url: 'https://10.0.0.7:3000' })
  })

  it('opens this machine over http', () => {
    expect(classify('localhost')).toEqual({ kind: 'url', url: 'http://localhost' })
    expect(classify('localhost:5173/x')).toEqual({ kind: 'url', url: 'http://localhost:5173/x' })
    expect(classify('127.0.0.1:8080')).toEqual({ kind: 'url', url: 'http://127.0.0.1:8080' })
    expect(classify('[::1]:9000')).toEqual({ kind: 'url', url: 'http://[::1]:9000' })
  })

  it('takes anything with a space as a task, even around a host', () => {
    expect(classify('summarise example.com')).toEqual({ kind: 'task', task: 'summarise example.com' })
    expect(classify(' add three skills to my LinkedIn ')).toEqual({ kind: 'task', task: 'add three skills to my LinkedIn' })
  })

  it('takes a word that is no host as a task', () => {
    expect(classify('weather')).toEqual({ kind: 'task', task: 'weather' })
    expect(classify('example.c')).toEqual({ kind: 'task', task: 'example.c' })
    expect(classify('example.com:123456')).toEqual({ kind: 'task', task: 'example.com:123456' })
  })
})
