import { describe, expect, it } from 'vitest'
import { money, nameTabs, tabName, tokens, waitNotice, withWait } from './format'
import type { ModelWait } from './types.gen'

describe('money', () => {
  it('shows four decimals below a cent and two from it', () => {
    expect(money(0)).toBe('$0.0000')
    expect(money(0.0042)).toBe('$0.0042')
    expect(money(0.01)).toBe('$0.01')
    expect(money(1.236)).toBe('$1.24')
  })
})

describe('tokens', () => {
  it('shortens thousands', () => {
    expect(tokens(0)).toBe('0 tok')
    expect(tokens(999)).toBe('999 tok')
    expect(tokens(1000)).toBe('1.0k tok')
    expect(tokens(1250)).toBe('1.3k tok')
    expect(tokens(9999)).toBe('10.0k tok')
    expect(tokens(10000)).toBe('10k tok')
    expect(tokens(123456)).toBe('123k tok')
  })
})

describe('tabName', () => {
  it('names a tab by its title and host', () => {
    expect(tabName({ title: 'GitHub – octocat', url: 'https://github.com/octocat' })).toBe('GitHub – octocat (github.com)')
  })

  it('gives the host alone when the title only repeats the address', () => {
    expect(tabName({ title: 'https://example.com/a', url: 'https://example.com/a' })).toBe('example.com')
    expect(tabName({ title: 'example.com/a', url: 'https://example.com/a' })).toBe('example.com')
    expect(tabName({ title: '   ', url: 'https://example.com/' })).toBe('example.com')
  })

  it('gives the title alone without a host, clipped', () => {
    expect(tabName({ title: 'Notes', url: 'about:blank' })).toBe('Notes')
    const long = 'x'.repeat(100)
    expect(tabName({ title: long, url: '' })).toBe('x'.repeat(79) + '…')
  })

  it('calls a tab with nothing to show a new tab', () => {
    expect(tabName({ title: '', url: '' })).toBe('a new tab')
    expect(tabName({ title: '', url: 'not a url' })).toBe('a new tab')
  })
})

describe('nameTabs', () => {
  const tabs = [
    { id: '8F48A993C0DE4411', title: 'Inbox', url: 'https://mail.example.com/' },
    { id: 'short', title: 'Short', url: 'https://s.example.com/' },
  ]

  it('replaces every known target id with the tab name', () => {
    expect(nameTabs('moved to tab 8F48A993C0DE4411, then 8F48A993C0DE4411 again', tabs)).toBe(
      'moved to tab “Inbox (mail.example.com)”, then “Inbox (mail.example.com)” again',
    )
  })

  it('leaves ids too short to be a target, and text without ids, alone', () => {
    expect(nameTabs('a short answer', tabs)).toBe('a short answer')
    expect(nameTabs('nothing here', [])).toBe('nothing here')
  })
})

describe('waitNotice', () => {
  const retry: ModelWait = { agent: 'agent 1', role: 'executor', reason: 'HTTP 429', wait_s: 20, attempt: 3, retries: 3 }
  it('says a retry wait as agents.ModelWait does, less the agent', () => {
    expect(waitNotice(retry)).toBe('model server slow: waiting 20 s, retry 2/3 (HTTP 429)')
    expect(waitNotice({ ...retry, wait_s: 0.55, attempt: 2 })).toBe('model server slow: waiting 0.6 s, retry 1/3 (HTTP 429)')
  })
  it('says a call not answered yet by its reason', () => {
    expect(waitNotice({ agent: 'planner', role: 'planner', reason: 'no answer for planner yet after 5.0 s' })).toBe(
      'model server slow: no answer for planner yet after 5.0 s',
    )
  })
  it('says nothing once the wait is over', () => {
    expect(waitNotice({ ...retry, done: true })).toBe('')
  })
})

describe('withWait', () => {
  it('keeps each agent\'s latest wait and takes it down when it is over', () => {
    const a: ModelWait = { agent: 'agent 1', role: 'executor', reason: 'HTTP 429', wait_s: 2, attempt: 2, retries: 3 }
    const p: ModelWait = { agent: 'planner', role: 'planner', reason: 'no answer yet' }
    let waits = withWait({}, a)
    waits = withWait(waits, p)
    expect(Object.keys(waits).sort()).toEqual(['agent 1', 'planner'])
    waits = withWait(waits, { agent: 'agent 1', role: 'executor', reason: '', done: true })
    expect(waits).toEqual({ planner: p })
  })
})
