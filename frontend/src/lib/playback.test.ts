import { describe, expect, it } from 'vitest'
import { advance, filter, FrameLoop, MAX_GAP_MS, upTo } from './playback'
import { TestClock } from './testclock'
import type { ReplayEntry } from './types.gen'

const entry = (at_ms: number, who: string, more: Partial<ReplayEntry> = {}): ReplayEntry => ({ at_ms, who, kind: 'speech', text: '', ...more })

describe('upTo', () => {
  const entries = [entry(0, 'planner'), entry(100, 'agent 1'), entry(100, 'agent 2'), entry(250, 'planner')]

  it('counts the entries at or before a time', () => {
    expect(upTo(entries, -1)).toBe(0)
    expect(upTo(entries, 0)).toBe(1)
    expect(upTo(entries, 99)).toBe(1)
    expect(upTo(entries, 100)).toBe(3)
    expect(upTo(entries, 250)).toBe(4)
    expect(upTo(entries, 1e9)).toBe(4)
    expect(upTo([], 10)).toBe(0)
  })
})

describe('filter', () => {
  const timeline = [
    entry(0, 'system', { kind: 'run_start' }),
    entry(10, 'planner', { kind: 'spawn', agent: 'agent 1' }),
    entry(20, 'agent 1', { kind: 'tool' }),
    entry(30, 'agent 1', { kind: 'model', detail: true }),
    entry(40, 'agent 2', { kind: 'tool' }),
  ]
  const at = (es: ReplayEntry[]) => es.map((e) => e.at_ms)

  it('shows everyone’s entries without bookkeeping by default', () => {
    expect(at(filter(timeline, '', false))).toEqual([0, 10, 20, 40])
    expect(at(filter(timeline, '', true))).toEqual([0, 10, 20, 30, 40])
  })

  it('shows a lane’s own entries and those about it', () => {
    expect(at(filter(timeline, 'agent 1', false))).toEqual([10, 20])
    expect(at(filter(timeline, 'agent 1', true))).toEqual([10, 20, 30])
    expect(at(filter(timeline, 'nobody', true))).toEqual([])
  })
})

describe('advance', () => {
  const visible = [entry(1000, 'planner'), entry(60_000, 'agent 1')]

  it('moves at the speed asked for and stops at the end', () => {
    expect(advance(0, 16, 1, visible, 70_000)).toBe(16)
    expect(advance(0, 16, 4, visible, 70_000)).toBe(64)
    expect(advance(69_990, 100, 1, visible, 70_000)).toBe(70_000)
  })

  it('shortens an idle stretch before the next entry to MAX_GAP_MS of real time', () => {
    // From 1 s, the next entry is 59 s away: the playhead jumps to 2 s before it.
    expect(advance(1000, 10, 1, visible, 70_000)).toBe(60_000 - MAX_GAP_MS + 10)
    // At 16×, MAX_GAP_MS of real time is 32 s of the run.
    expect(advance(1000, 10, 16, visible, 70_000)).toBe(60_000 - MAX_GAP_MS * 16 + 160)
    // A gap of less than that plays in full.
    expect(advance(1000, 10, 64, visible, 70_000)).toBe(1000 + 640)
  })

  it('does not shorten the stretch after the last entry', () => {
    expect(advance(60_000, 10, 1, visible, 600_000)).toBe(60_010)
  })
})

describe('FrameLoop', () => {
  it('steps once a frame with the real time since the last', () => {
    const clock = new TestClock()
    const dts: number[] = []
    const loop = new FrameLoop(clock, (dt) => dts.push(dt) < 3)
    clock.step(5) // before start: nothing asked for
    loop.start()
    expect(loop.running).toBe(true)
    clock.step(16)
    clock.step(17)
    clock.step(20)
    clock.step(20)
    expect(dts).toEqual([16, 17, 20])
    expect(loop.running).toBe(false)
    expect(clock.waiting).toBe(0)
  })

  it('never steps again once stopped, even for a frame already asked for', () => {
    const clock = new TestClock()
    let steps = 0
    const loop = new FrameLoop(clock, () => ++steps > 0)
    loop.start()
    clock.step(16)
    loop.stop()
    expect(clock.waiting).toBe(0)
    clock.step(16)
    expect(steps).toBe(1)
    expect(loop.running).toBe(false)
  })

  it('restarts from now: the time stopped is not stepped over', () => {
    const clock = new TestClock()
    const dts: number[] = []
    const loop = new FrameLoop(clock, (dt) => dts.push(dt) > 0)
    loop.start()
    clock.step(10)
    loop.stop()
    clock.step(5000)
    loop.start()
    loop.start() // a second start does not double the frames
    expect(clock.waiting).toBe(1)
    clock.step(12)
    expect(dts).toEqual([10, 12])
  })
})
