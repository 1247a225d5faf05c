// The replay player: a past run's timeline (from the run log, through
// api.replay) played back at a chosen speed. It only reads: playing a run
// drives no browser and starts no agent. The store (desk.svelte.ts) holds
// the one player; components read it there and change it through its
// methods. Its clock, and what it plays by when, is in playback.ts.
import { api, type Replay, type ReplayEntry } from './api'
import { attempt } from './errors'
import { advance, filter, FrameLoop, upTo, type Clock, type Speed } from './playback'

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

  private loop: FrameLoop

  constructor(clock: Clock) {
    this.loop = new FrameLoop(clock, (dt) => this.tick(dt))
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
    // Once another run is opened, or the view closed, this one's answer is
    // nobody's.
    const report = (m: string) => {
      if (this.id === id) this.error = m
    }
    const ok = await attempt(report, async () => {
      const r = await api.replay(id)
      if (this.id === id) this.data = r
    })
    if (this.id !== id) return
    this.loading = false
    if (ok) this.play()
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
    this.loop.start()
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
    this.loop.stop()
  }

  private tick(dt: number): boolean {
    this.pos = advance(this.pos, dt, this.speed, this.visible, this.duration)
    if (this.pos < this.duration) return true
    this.playing = false
    return false
  }
}
