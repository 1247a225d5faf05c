// The replay player: a past run's timeline (from the run log, through
// api.replay) played back at a chosen speed. It only reads: playing a run
// drives no browser and starts no agent. The store (desk.svelte.ts) holds
// the one player; components read it there and change it through its
// methods.
import { api, type Replay, type ReplayEntry } from './api'

/** SPEEDS are the playback speeds offered. */
export const SPEEDS = [1, 4, 16] as const
export type Speed = (typeof SPEEDS)[number]

/**
 * MAX_GAP_MS is the longest real-time wait between two entries while
 * playing: a run that sat idle for a minute (a slow model, a person
 * thinking) does not make the viewer wait a minute.
 */
export const MAX_GAP_MS = 2000

/** Clock is the player's time source, injected so tests can drive it. */
export interface Clock {
  now(): number
  frame(cb: (t: number) => void): number
  cancel(handle: number): void
}

/** browserClock is the window's own: performance.now and animation frames. */
export const browserClock: Clock = {
  now: () => performance.now(),
  frame: (cb) => requestAnimationFrame(cb),
  cancel: (h) => cancelAnimationFrame(h),
}

/** upTo returns how many of entries (sorted by time) happen at or before ms. */
export function upTo(entries: readonly ReplayEntry[], ms: number): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (entries[mid].at_ms <= ms) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** filter keeps the entries a lane ('' for everyone) and the detail switch let through. */
export function filter(timeline: readonly ReplayEntry[], lane: string, details: boolean): ReplayEntry[] {
  return timeline.filter((e) => (details || !e.detail) && (lane === '' || e.who === lane || e.agent === lane))
}

/**
 * advance is where the playhead is dt ms of real time after pos, at speed:
 * an idle stretch before the next visible entry is shortened to MAX_GAP_MS
 * of real time, and the end of the run is the furthest it goes.
 */
export function advance(pos: number, dt: number, speed: number, visible: readonly ReplayEntry[], duration: number): number {
  const next = visible[upTo(visible, pos)]
  if (next && (next.at_ms - pos) / speed > MAX_GAP_MS) pos = next.at_ms - MAX_GAP_MS * speed
  return Math.min(pos + dt * speed, duration)
}

/** ReplayPlayer is the replay view's state and its frame loop. */
export class ReplayPlayer {
  /** id is the run shown; empty when the replay view is closed. */
  id = $state('')
  data: Replay | null = $state(null)
  loading = $state(false)
  error = $state('')
  playing = $state(false)
  speed: Speed = $state(1)
  /** pos is how far the run has played, in ms since it started. */
  pos = $state(0)
  /** lane shows one actor's entries only; empty shows everyone's. */
  lane = $state('')
  /** details shows bookkeeping entries: model calls, observations, notices. */
  details = $state(false)

  isOpen = $derived(this.id !== '')
  duration = $derived(this.data?.duration_ms ?? 0)
  /** visible is every entry the lane and detail filters let through. */
  visible: ReplayEntry[] = $derived(filter(this.data?.timeline ?? [], this.lane, this.details))
  /** count is how many visible entries have happened by pos. */
  count = $derived(upTo(this.visible, this.pos))
  /** shown is what has happened by pos; it changes only when count does, not every frame. */
  shown: ReplayEntry[] = $derived(this.visible.slice(0, this.count))
  ended = $derived(this.data !== null && this.pos >= this.duration)

  private clock: Clock
  private handle = 0
  private last = 0

  constructor(clock: Clock) {
    this.clock = clock
  }

  /** open loads run id's timeline and starts playing it at 1×. */
  async open(id: string) {
    this.stop()
    this.id = id
    this.data = null
    this.error = ''
    this.pos = 0
    this.lane = ''
    this.loading = true
    try {
      const r = await api.replay(id)
      if (this.id !== id) return // another run was opened, or the view closed
      this.data = r
      this.play()
    } catch (e) {
      if (this.id === id) this.error = (e as Error).message
    } finally {
      if (this.id === id) this.loading = false
    }
  }

  /** close leaves the replay; the desk is as the person left it. */
  close() {
    this.stop()
    this.id = ''
    this.data = null
    this.error = ''
    this.loading = false
  }

  play() {
    if (!this.data) return
    if (this.ended) this.pos = 0
    this.playing = true
    this.last = this.clock.now()
    this.schedule()
  }

  pause() {
    this.stop()
  }

  toggle() {
    if (this.playing) this.pause()
    else this.play()
  }

  setSpeed(s: Speed) {
    this.speed = s
  }

  /** seek moves the playhead; playing continues from there. */
  seek(ms: number) {
    this.pos = Math.min(Math.max(0, ms), this.duration)
  }

  /** showAll jumps to the end: every entry at once. */
  showAll() {
    this.stop()
    this.pos = this.duration
  }

  /** setLane shows one actor's entries only ('' for everyone's). */
  setLane(lane: string) {
    this.lane = lane
  }

  /** toggleLane shows one actor's entries, or everyone's again when it already does. */
  toggleLane(lane: string) {
    this.lane = this.lane === lane ? '' : lane
  }

  /** setDetails shows or hides bookkeeping entries. */
  setDetails(on: boolean) {
    this.details = on
  }

  private stop() {
    this.playing = false
    if (this.handle) this.clock.cancel(this.handle)
    this.handle = 0
  }

  private schedule() {
    this.handle = this.clock.frame((t) => this.tick(t))
  }

  private tick(t: number) {
    this.handle = 0
    if (!this.playing) return
    const dt = Math.max(0, t - this.last)
    this.last = t
    this.pos = advance(this.pos, dt, this.speed, this.visible, this.duration)
    if (this.pos >= this.duration) {
      this.playing = false
      return
    }
    this.schedule()
  }
}
