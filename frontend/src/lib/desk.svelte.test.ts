import { expect, it, vi } from 'vitest'
import type { BrowserState, TabsView } from './types.gen'

// Go's side of the desk: events the test sends, and a tab list read that
// waits for the test to answer it (vi.mock is hoisted above the imports).
const go = vi.hoisted(() => {
  const handlers: Record<string, (v: unknown) => void> = {}
  const reads: ((v: TabsView) => void)[] = []
  const states: ((v: BrowserState) => void)[] = []
  return { handlers, reads, states }
})
vi.mock('./api', () => ({
  api: {
    on: (name: string, fn: (v: unknown) => void) => void (go.handlers[name] = fn),
    tabs: () => new Promise((answer) => go.reads.push(answer)),
    browserState: () => new Promise((answer) => go.states.push(answer)),
    run: () => Promise.resolve(null),
    cards: () => Promise.resolve([]),
    history: () => Promise.resolve([]),
  },
}))

const { desk } = await import('./desk.svelte')

const view = (...ids: string[]): TabsView => ({ tabs: ids.map((id) => ({ id, url: 'https://' + id, title: id })), active: ids[0] ?? '' })

it('keeps what an event brought over an older read that answers after it', async () => {
  const started = desk.start()
  // Go read the browser's state before it was ready; the ready event
  // (which reads the tabs again) overtakes the answer.
  await vi.waitFor(() => expect(go.states).toHaveLength(1))
  go.handlers['browser:state']({ ready: true })
  go.states[0]({ ready: false })
  await vi.waitFor(() => expect(go.reads).toHaveLength(2))
  expect(desk.browserReady).toBe(true)

  // Both tab reads were answered by Go before a tab opened; the event of
  // the opening overtakes the answers.
  go.handlers['tabs:changed'](view('t2', 't1'))
  go.reads[0](view('t1'))
  go.reads[1](view('t1'))
  await started
  expect(desk.tabs.map((t) => t.id)).toEqual(['t2', 't1'])
  expect(desk.active).toBe('t2')

  // A read with no event meanwhile is taken.
  const read = desk.refreshTabs()
  go.reads[2](view('t3'))
  await read
  expect(desk.active).toBe('t3')
})
