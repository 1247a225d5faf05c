// A replay's clock: where the playhead of a past run's timeline is after
// some real time at a chosen speed, what has happened by then, and the
// frame loop that moves it. Pure, and driven by an injected Clock, so it is
// tested without a window; the player (replay.svelte.ts) holds its state.
import type { ReplayEntry } from './types.gen'

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

/**
 * FrameLoop calls step once a frame with the real time, in ms, since the
 * last one (since start for the first), until step returns false or the
 * loop is stopped. A stopped loop never steps again, even for a frame
 * already asked for.
 */
export class FrameLoop {
  private clock: Clock
  private step: (dt: number) => boolean
  private handle = 0
  private last = 0
  private on = false

  constructor(clock: Clock, step: (dt: number) => boolean) {
    this.clock = clock
    this.step = step
  }

  /** running says whether the loop will step again. */
  get running(): boolean {
    return this.on
  }

  /** start (re)starts the loop from now. */
  start() {
    this.stop()
    this.on = true
    this.last = this.clock.now()
    this.schedule()
  }

  /** stop ends the loop; a frame already asked for is cancelled. */
  stop() {
    this.on = false
    if (this.handle) this.clock.cancel(this.handle)
    this.handle = 0
  }

  private schedule() {
    this.handle = this.clock.frame((t) => this.tick(t))
  }

  private tick(t: number) {
    this.handle = 0
    if (!this.on) return
    const dt = Math.max(0, t - this.last)
    this.last = t
    if (!this.step(dt)) {
      this.on = false
      return
    }
    this.schedule()
  }
}
