import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Replay, ReplayEntry } from './types.gen'
import { MAX_GAP_MS } from './playback'
import { ReplayPlayer } from './replay.svelte'
import { TestClock } from './testclock'

// The player asks Go for a run's timeline through api.replay; here each
// call waits for the test to answer it (vi.mock is hoisted above the
// imports).
const calls = vi.hoisted(() => [] as { id: string; answer: (r: Replay) => void; fail: (e: Error) => void }[])
vi.mock('./api', () => ({
  api: {
    replay: (id: string) => new Promise((answer, fail) => calls.push({ id, answer, fail })),
  },
}))

const entry = (at_ms: number, who: string, more: Partial<ReplayEntry> = {}): ReplayEntry => ({ at_ms, who, kind: 'speech', text: `${who} at ${at_ms}`, ...more })

function replay(id: string, timeline: ReplayEntry[], duration_ms: number): Replay {
  return {
    run: { id, task: 'get quotes', outcome: 'done', started: '2025-01-01T00:00:00Z', tokens: 10, cost: 0.01, agents: 2 },
    duration_ms,
    lanes: ['planner', 'agent 1'],
    timeline,
  }
}

const timeline = [
  entry(0, 'planner', { kind: 'run_start' }),
  entry(500, 'agent 1', { kind: 'tool' }),
  entry(600, 'agent 1', { kind: 'model', detail: true }),
  entry(1000, 'planner'),
]

beforeEach(() => {
  calls.length = 0
})

// opened is a player that has loaded data and started playing it.
async function opened(clock: TestClock, data = replay('r1', timeline, 1200)) {
  const player = new ReplayPlayer(clock)
  const open = player.open(data.run.id)
  expect(player.isOpen).toBe(true)
  expect(player.loading).toBe(true)
  calls[calls.length - 1].answer(data)
  await open
  return player
}

describe('ReplayPlayer playing', () => {
  it('loads a run and plays it at 1×, frame by frame', async () => {
    const clock = new TestClock()
    const player = await opened(clock)
    expect(player.loading).toBe(false)
    expect(player.playing).toBe(true)
    expect(player.duration).toBe(1200)
    expect(player.shown.map((e) => e.at_ms)).toEqual([0])
    clock.step(400)
    expect(player.pos).toBe(400)
    clock.step(200)
    // The bookkeeping entry at 600 stays hidden until asked for.
    expect(player.shown.map((e) => e.at_ms)).toEqual([0, 500])
    player.setDetails(true)
    expect(player.shown.map((e) => e.at_ms)).toEqual([0, 500, 600])
  })

  it('plays faster at a higher speed and stops at the end', async () => {
    const clock = new TestClock()
    const player = await opened(clock)
    player.setSpeed(4)
    clock.step(100)
    expect(player.pos).toBe(400)
    clock.step(1000)
    expect(player.pos).toBe(1200)
    expect(player.ended).toBe(true)
    expect(player.playing).toBe(false)
    expect(clock.waiting).toBe(0)
    expect(player.count).toBe(3)
  })

  it('waits at most MAX_GAP_MS through an idle stretch', async () => {
    const clock = new TestClock()
    const player = await opened(clock, replay('r2', [entry(0, 'planner'), entry(600_000, 'planner')], 600_500))
    clock.step(10)
    expect(player.pos).toBe(600_000 - MAX_GAP_MS + 10)
    clock.step(MAX_GAP_MS)
    expect(player.count).toBe(2)
  })

  it('pauses, seeks and plays from there; a play at the end starts over', async () => {
    const clock = new TestClock()
    const player = await opened(clock)
    clock.step(100)
    player.toggle()
    expect(player.playing).toBe(false)
    clock.step(500)
    expect(player.pos).toBe(100)
    player.seek(900)
    expect(player.count).toBe(2)
    player.seek(-5)
    expect(player.pos).toBe(0)
    player.seek(99_999)
    expect(player.pos).toBe(1200)
    player.play()
    expect(player.pos).toBe(0)
    clock.step(50)
    expect(player.pos).toBe(50)
  })

  it('shows everything at once and filters by lane', async () => {
    const clock = new TestClock()
    const player = await opened(clock)
    player.showAll()
    expect(player.playing).toBe(false)
    expect(player.shown.length).toBe(3)
    player.toggleLane('agent 1')
    expect(player.shown.map((e) => e.who)).toEqual(['agent 1'])
    player.toggleLane('agent 1')
    expect(player.lane).toBe('')
  })

})

describe('ReplayPlayer loading', () => {
  it('reports a run that cannot be loaded', async () => {
    const player = new ReplayPlayer(new TestClock())
    const open = player.open('gone')
    calls[0].fail(new Error('replay: no such run'))
    await open
    expect(player.error).toBe('replay: no such run')
    expect(player.loading).toBe(false)
    expect(player.playing).toBe(false)
  })

  it('drops the answer for a run no longer shown', async () => {
    const clock = new TestClock()
    const player = new ReplayPlayer(clock)
    const first = player.open('r1')
    const second = player.open('r2')
    calls[0].answer(replay('r1', timeline, 1200))
    await first
    expect(player.data).toBeNull()
    expect(player.loading).toBe(true)
    calls[1].fail(new Error('slow disk'))
    await second
    expect(player.id).toBe('r2')
    expect(player.error).toBe('slow disk')
    player.close()
    expect(player.isOpen).toBe(false)
    expect(player.error).toBe('')
    expect(clock.waiting).toBe(0)
  })
})
