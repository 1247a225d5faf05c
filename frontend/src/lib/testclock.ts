// A Clock for tests: time moves only when the test says, and each
// animation frame asked for runs at the next step.
import type { Clock } from './playback'

/** TestClock is a Clock the test steps by hand. */
export class TestClock implements Clock {
  private t = 0
  private nextHandle = 1
  private frames = new Map<number, (t: number) => void>()

  now(): number {
    return this.t
  }

  frame(cb: (t: number) => void): number {
    const h = this.nextHandle++
    this.frames.set(h, cb)
    return h
  }

  cancel(handle: number) {
    this.frames.delete(handle)
  }

  /** waiting is how many frames are asked for and not yet run. */
  get waiting(): number {
    return this.frames.size
  }

  /** step moves time on by ms and runs the frames asked for before it. */
  step(ms: number) {
    this.t += ms
    const due = [...this.frames.values()]
    this.frames.clear()
    for (const cb of due) cb(this.t)
  }
}
