// The person's microphone: the Unmute button and push-to-talk. Unmuting
// takes the floor at once (any agent speaking stops); muting sends what was
// said to every agent. Push-to-talk holds the backquote key (`): pressing
// opens the microphone, releasing sends. A key that never types is needed
// because Space belongs to text fields; where the person types (a field, or
// a live view they drive) the key is left alone.
//
// The microphone is open only within the run it was opened in: the run's
// voice ends with the run, so once it ends, or another starts, the
// microphone reads as closed without anyone writing that down. The store (desk.svelte.ts) holds
// the one Mic; components read it there and work it through its methods.
import { attempt, errorText, type Report } from './errors'

/** MicCalls are the Go calls the microphone makes (api's unmute and mute). */
export interface MicCalls {
  unmute(): Promise<void>
  mute(): Promise<void>
}

/** TalkKey is what push-to-talk reads of a key event. */
export type TalkKey = Pick<KeyboardEvent, 'code' | 'ctrlKey' | 'altKey' | 'metaKey' | 'repeat' | 'target' | 'preventDefault'>

/** PTT_KEY is push-to-talk's key, by its code. */
export const PTT_KEY = 'Backquote'

const typingPlaces = 'input, textarea, select, [contenteditable]:not([contenteditable=false]), .live'

/** typingIn says whether t is where the person types: inside a field, an editable, or a live view. */
export function typingIn(t: EventTarget | null): boolean {
  const el = t as Partial<Pick<Element, 'closest'>> | null
  return typeof el?.closest === 'function' && el.closest(typingPlaces) !== null
}

/** isTalkKey says whether ev is push-to-talk's key, unmodified, pressed outside where the person types. */
export function isTalkKey(ev: TalkKey): boolean {
  return ev.code === PTT_KEY && !ev.ctrlKey && !ev.altKey && !ev.metaKey && !typingIn(ev.target)
}

/** Mic is the microphone's state and the calls that change it. */
export class Mic {
  // The run the microphone was opened in, and the one push-to-talk is held
  // in ('' for none).
  private openIn = $state('')
  private heldIn = $state('')
  private lastLevel = $state(0)
  private calls: MicCalls
  private run: () => string
  // The microphone's calls run in order, so a quick tap's release never
  // overtakes its press.
  private ops: Promise<void> = Promise.resolve()

  /** open says whether the microphone is open in the running run. */
  open = $derived.by(() => this.openIn !== '' && this.openIn === this.run())
  /** held says whether push-to-talk is held in the running run. */
  held = $derived.by(() => this.heldIn !== '' && this.heldIn === this.run())
  /** level is the open microphone's level, 0 to 1, as Go pushes it; 0 while closed. */
  level = $derived(this.open ? this.lastLevel : 0)

  /** A Mic makes calls, within the run that running names: its id, or '' while none runs. */
  constructor(calls: MicCalls, running: () => string) {
    this.calls = calls
    this.run = running
  }

  /** heard takes the level Go pushes while the microphone is open (and a last 0 on mute). */
  heard(level: number) {
    this.lastLevel = level
  }

  /** toggle is the button: it opens the microphone, or closes it and sends what was said. */
  async toggle(report: Report) {
    const ok = await attempt(report, async () => {
      if (this.open) {
        this.openIn = ''
        await this.calls.mute()
        return
      }
      const run = this.run()
      await this.calls.unmute()
      this.openIn = run
    })
    if (!ok) this.openIn = ''
  }

  /**
   * keydown opens the microphone while push-to-talk's key is held. The key
   * types nothing where it is push-to-talk's; key repeat, or a microphone
   * the button already opened, changes nothing.
   */
  keydown(ev: TalkKey, report: Report) {
    if (!isTalkKey(ev)) return
    ev.preventDefault()
    const run = this.run()
    if (ev.repeat || this.held || this.open || run === '') return
    this.heldIn = run
    report('')
    this.serial(report, async () => {
      await this.calls.unmute()
      this.openIn = run
    })
  }

  /** keyup releases push-to-talk when its key comes up. */
  keyup(ev: TalkKey, report: Report) {
    if (ev.code !== PTT_KEY || !this.held) return
    ev.preventDefault()
    this.release(report)
  }

  /** release ends push-to-talk (its key came up, or the window lost the keyboard): what was said is sent. */
  release(report: Report) {
    if (!this.held) return
    this.heldIn = ''
    this.serial(report, async () => {
      if (!this.open) return
      this.openIn = ''
      await this.calls.mute()
    })
  }

  private serial(report: Report, op: () => Promise<void>) {
    this.ops = this.ops.then(op).catch((e: unknown) => {
      this.openIn = ''
      report(errorText(e))
    })
  }

  /** idle resolves once every push-to-talk call made so far has been answered. */
  idle(): Promise<void> {
    return this.ops
  }
}
