import { describe, expect, it } from 'vitest'
import { isTalkKey, Mic, PTT_KEY, typingIn, type TalkKey } from './mic.svelte'

// goSide stands in for Go's unmute and mute: it records the calls, and a
// call waits for the test when it is held.
function goSide() {
  const calls: string[] = []
  const held: { name: string; go: () => void; fail: (e: Error) => void }[] = []
  let hold = false
  const call = (name: string) => () => {
    calls.push(name)
    if (!hold) return Promise.resolve()
    return new Promise<void>((go, fail) => held.push({ name, go, fail }))
  }
  return {
    calls,
    held,
    holdCalls: (on: boolean) => void (hold = on),
    unmute: call('unmute'),
    mute: call('mute'),
  }
}

// key is a key event as push-to-talk reads it; prevented says whether its
// default was stopped.
function key(more: Partial<TalkKey> = {}): TalkKey & { prevented: boolean } {
  const ev = {
    code: PTT_KEY,
    ctrlKey: false,
    altKey: false,
    metaKey: false,
    repeat: false,
    target: null,
    prevented: false,
    preventDefault: () => void (ev.prevented = true),
    ...more,
  }
  return ev
}

// field is an event target inside a text field.
const field = { closest: (sel: string) => (sel.includes('input') ? {} : null) } as unknown as EventTarget

// setup makes a Mic within a run whose id the test changes.
function setup() {
  const go = goSide()
  const shown: string[] = []
  let run = $state('run-1')
  const mic = new Mic(go, () => run)
  return { go, mic, shown, report: (m: string) => void shown.push(m), endRun: (next = '') => void (run = next) }
}

describe('typingIn and isTalkKey', () => {
  it('leave the key alone where the person types', () => {
    expect(typingIn(null)).toBe(false)
    expect(typingIn({} as EventTarget)).toBe(false)
    expect(typingIn(field)).toBe(true)
    expect(isTalkKey(key({ target: field }))).toBe(false)
  })

  it('take only the backquote key, unmodified', () => {
    expect(isTalkKey(key())).toBe(true)
    expect(isTalkKey(key({ code: 'Space' }))).toBe(false)
    expect(isTalkKey(key({ ctrlKey: true }))).toBe(false)
    expect(isTalkKey(key({ altKey: true }))).toBe(false)
    expect(isTalkKey(key({ metaKey: true }))).toBe(false)
  })
})

describe('Mic button', () => {
  it('opens and closes with the button', async () => {
    const { go, mic, report, shown } = setup()
    await mic.toggle(report)
    expect(mic.open).toBe(true)
    await mic.toggle(report)
    expect(mic.open).toBe(false)
    expect(go.calls).toEqual(['unmute', 'mute'])
    expect(shown).toEqual(['', ''])
  })

  it('reads as closed once its run ends, and in the next run', async () => {
    const { mic, report, endRun } = setup()
    await mic.toggle(report)
    mic.heard(0.4)
    expect(mic.level).toBe(0.4)
    endRun()
    expect(mic.open).toBe(false)
    expect(mic.level).toBe(0)
    endRun('run-2')
    expect(mic.open).toBe(false)
  })

  it('stays closed when unmuting fails, and says why', async () => {
    const { go, mic, report, shown } = setup()
    go.holdCalls(true)
    const toggling = mic.toggle(report)
    go.held[0].fail(new Error('unmute: no microphone'))
    await toggling
    expect(mic.open).toBe(false)
    expect(shown).toEqual(['', 'unmute: no microphone'])
  })
})

describe('Mic push-to-talk', () => {
  it('talks while the key is held and sends on release', async () => {
    const { go, mic, report } = setup()
    const down = key()
    mic.keydown(down, report)
    expect(down.prevented).toBe(true)
    expect(mic.held).toBe(true)
    await mic.idle()
    expect(mic.open).toBe(true)
    mic.keydown(key({ repeat: true }), report)
    const up = key()
    mic.keyup(up, report)
    expect(up.prevented).toBe(true)
    expect(mic.held).toBe(false)
    await mic.idle()
    expect(mic.open).toBe(false)
    expect(go.calls).toEqual(['unmute', 'mute'])
  })

  it('never lets a quick tap’s release overtake its press', async () => {
    const { go, mic, report } = setup()
    go.holdCalls(true)
    mic.keydown(key(), report)
    mic.keyup(key(), report)
    await until(() => go.held.length === 1)
    await flush()
    expect(go.calls).toEqual(['unmute'])
    go.held[0].go()
    await until(() => go.held.length === 2)
    expect(go.calls).toEqual(['unmute', 'mute'])
    go.held[1].go()
    await mic.idle()
    expect(mic.open).toBe(false)
  })

  it('does nothing with the key where the person types, or with no run', async () => {
    const { go, mic, report, endRun } = setup()
    const typed = key({ target: field })
    mic.keydown(typed, report)
    expect(typed.prevented).toBe(false)
    endRun()
    const idle = key()
    mic.keydown(idle, report)
    // The key is still push-to-talk's: it types nothing.
    expect(idle.prevented).toBe(true)
    await mic.idle()
    expect(go.calls).toEqual([])
    expect(mic.held).toBe(false)
  })

  it('leaves a microphone the button opened to the button', async () => {
    const { go, mic, report } = setup()
    await mic.toggle(report)
    mic.keydown(key(), report)
    mic.keyup(key(), report)
    mic.release(report)
    await mic.idle()
    expect(go.calls).toEqual(['unmute'])
    expect(mic.open).toBe(true)
  })

  it('reports a failed push-to-talk and sends nothing on release', async () => {
    const { go, mic, report, shown } = setup()
    go.holdCalls(true)
    mic.keydown(key(), report)
    await until(() => go.held.length === 1)
    go.held[0].fail(new Error('unmute: the floor is gone'))
    await mic.idle()
    expect(shown).toEqual(['', 'unmute: the floor is gone'])
    mic.release(report)
    await mic.idle()
    expect(go.calls).toEqual(['unmute'])
    expect(mic.open).toBe(false)
  })
})

// until waits, a microtask at a time, until cond holds: the chained calls
// settle in a few, so a hundred means they never will.
async function until(cond: () => boolean) {
  for (let i = 0; i < 100 && !cond(); i++) await Promise.resolve()
  expect(cond()).toBe(true)
}

// flush lets every call already chained run.
async function flush() {
  for (let i = 0; i < 100; i++) await Promise.resolve()
}
