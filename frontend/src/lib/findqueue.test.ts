import { expect, it } from 'vitest'
import type { FindResult } from './api'
import { FindQueue } from './findqueue'

// goSide records the find calls; each waits for the test to answer it.
function goSide() {
  const calls: { text: string; step: number; answer: (r: FindResult) => void }[] = []
  const call = (_tab: string, text: string, step: number) => new Promise<FindResult>((answer) => calls.push({ text, step, answer }))
  return { calls, call }
}

const found = (matches: number): FindResult => ({ matches, active: matches ? 1 : 0 })

// settle lets the queue's promise chain take its next step.
const settle = () => new Promise((r) => setTimeout(r, 0))

it('clears after the finds before it, and drops those not started', async () => {
  const go = goSide()
  const q = new FindQueue(go.call)
  let text = 'apple'
  const shown: number[] = []
  q.find('t1', text, 0, () => text, (r) => shown.push(r.matches), () => {})
  await settle() // the search is on its way when Enter and Esc come
  q.find('t1', text, 1, () => text, (r) => shown.push(r.matches), () => {})
  const closed = q.close('t1')
  await settle()
  expect(go.calls.map((c) => c.text)).toEqual(['apple'])
  go.calls[0].answer(found(3))
  await settle()
  // The step asked before Esc is dropped: the clear comes next.
  expect(go.calls.map((c) => [c.text, c.step])).toEqual([['apple', 0], ['', 0]])
  go.calls[1].answer(found(0))
  await closed
  expect(shown).toEqual([])
  text = ''
})

it('skips a search for text the box no longer holds', async () => {
  const go = goSide()
  const q = new FindQueue(go.call)
  let text = 'a'
  const shown: string[] = []
  const done = (r: FindResult) => shown.push(`${text}:${r.matches}`)
  q.find('t1', 'a', 0, () => text, done, () => {})
  await settle() // on its way while the next letters are typed
  text = 'ap'
  q.find('t1', 'ap', 0, () => text, done, () => {})
  text = 'app'
  q.find('t1', 'app', 0, () => text, done, () => {})
  await settle()
  go.calls[0].answer(found(9))
  await settle()
  expect(go.calls.map((c) => c.text)).toEqual(['a', 'app'])
  go.calls[1].answer(found(2))
  await settle()
  expect(shown).toEqual(['app:2'])
})
