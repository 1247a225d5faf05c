import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { NavState } from './api'

// Go's side, as the toolbar calls it: each history read waits for the
// test to answer it; back and forward are recorded (vi.mock is hoisted
// above the imports).
const go = vi.hoisted(() => ({
  reads: [] as { tab: string; answer: (n: NavState) => void }[],
  moves: [] as string[],
  desk: { active: 't1', showRun: false, run: null as object | null },
}))
vi.mock('./api', () => ({
  api: {
    navState: (tab: string) => new Promise((answer) => go.reads.push({ tab, answer })),
    goBack: (tab: string) => Promise.resolve(void go.moves.push('back ' + tab)),
    goForward: (tab: string) => Promise.resolve(void go.moves.push('forward ' + tab)),
  },
}))
vi.mock('./desk.svelte', () => ({ desk: go.desk }))

const { browsing } = await import('./browsing.svelte')

const nav = (canBack: boolean, canForward: boolean): NavState => ({ canBack, canForward, zoom: 1 })

beforeEach(() => {
  go.reads.length = 0
  go.moves.length = 0
  go.desk.active = 't1'
  go.desk.run = null
})

describe('the toolbar', () => {
  it('keeps the newest read of the history when an older one answers last', async () => {
    const older = browsing.refresh()
    const newer = browsing.refresh()
    go.reads[1].answer(nav(true, true))
    await newer
    go.reads[0].answer(nav(false, false))
    await older
    expect(browsing.nav).toEqual(nav(true, true))
  })

  it('sends Alt+Left and Alt+Right to the tab whatever it last read', async () => {
    const read = browsing.refresh()
    go.reads[0].answer(nav(false, false))
    await read
    await browsing.run('back')
    await browsing.run('forward')
    expect(go.moves).toEqual(['back t1', 'forward t1'])
    expect(browsing.error).toBe('')
  })

  it('sends nothing while a run fills the view', async () => {
    go.desk.showRun = true
    go.desk.run = {}
    await browsing.run('back')
    go.desk.showRun = false
    go.desk.run = null
    expect(go.moves).toEqual([])
  })
})
