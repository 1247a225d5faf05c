import { expect, it } from 'vitest'
import { Newest } from './newest'

// answerable is a read that waits for the test to answer it.
function answerable<T>() {
  let answer: (v: T) => void = () => {}
  const p = new Promise<T>((a) => (answer = a))
  return { get: () => p, answer: (v: T) => answer(v) }
}

it('drops a read an event overtook', async () => {
  const n = new Newest()
  let value = ''
  const r = answerable<string>()
  const read = n.read(r.get, (v) => (value = v))
  n.heard()
  value = 'from the event'
  r.answer('from the read')
  expect(await read).toBe(false)
  expect(value).toBe('from the event')
})

it('drops an older read that answers after a newer one', async () => {
  const n = new Newest()
  let value = ''
  const older = answerable<string>()
  const newer = answerable<string>()
  const a = n.read(older.get, (v) => (value = v))
  const b = n.read(newer.get, (v) => (value = v))
  newer.answer('newer')
  older.answer('older')
  expect([await a, await b]).toEqual([false, true])
  expect(value).toBe('newer')
})

it('keeps a read nothing overtook', async () => {
  const n = new Newest()
  let value = ''
  n.heard()
  expect(await n.read(() => Promise.resolve('read'), (v) => (value = v))).toBe(true)
  expect(value).toBe('read')
})
