import { describe, expect, it } from 'vitest'
import { attempt, errorText, reporting } from './errors'

// reports collects what a component would show, in order.
function reports(): { seen: string[]; report: (m: string) => void } {
  const seen: string[] = []
  return { seen, report: (m) => seen.push(m) }
}

describe('errorText', () => {
  it('is an Error’s message, a string itself, anything else as JSON', () => {
    expect(errorText(new Error('tab closed'))).toBe('tab closed')
    expect(errorText('no run is running')).toBe('no run is running')
    expect(errorText({ code: 7 })).toBe('{"code":7}')
    expect(errorText(undefined)).toBe('undefined')
  })

  it('still says something of a value JSON cannot write', () => {
    const cycle: { self?: unknown } = {}
    cycle.self = cycle
    expect(errorText(cycle)).toBe('[object Object]')
    expect(errorText(10n)).toBe('10')
  })
})

describe('attempt', () => {
  it('takes the last failure down, runs the call and says it succeeded', async () => {
    const { seen, report } = reports()
    let ran = false
    expect(
      await attempt(report, () => {
        ran = true
        return Promise.resolve(42)
      }),
    ).toBe(true)
    expect(ran).toBe(true)
    expect(seen).toEqual([''])
  })

  it('reports a failure instead of rejecting', async () => {
    const { seen, report } = reports()
    expect(await attempt(report, () => Promise.reject(new Error('Go said no')))).toBe(false)
    expect(seen).toEqual(['', 'Go said no'])
  })

  it('clears before the call starts, so the call’s own reports come after', async () => {
    const { seen, report } = reports()
    await attempt(report, () => {
      report('from inside')
      return Promise.reject(new Error('then failed'))
    })
    expect(seen).toEqual(['', 'from inside', 'then failed'])
  })

  it('reports a call that throws before it returns a promise', async () => {
    const { seen, report } = reports()
    expect(
      await attempt(report, () => {
        throw new Error('bad arguments')
      }),
    ).toBe(false)
    expect(seen).toEqual(['', 'bad arguments'])
  })
})

describe('reporting', () => {
  it('reports a rejection without clearing first', async () => {
    const { seen, report } = reports()
    await Promise.reject(new Error('stream ended')).catch(reporting(report))
    expect(seen).toEqual(['stream ended'])
  })
})
