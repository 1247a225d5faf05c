// The find bar's calls to Go, one at a time and in order: a find for
// text the box no longer holds is skipped when its turn comes, and a
// close clears the highlights after every find asked before it, which
// it drops, so no find lands after the clear and lights the page again.
import type { FindResult } from './api'

/** FindCall asks Go to find text in tab (step 0), or to go to the next (1) or previous (-1) match; '' clears. */
export type FindCall = (tab: string, text: string, step: number) => Promise<FindResult>

/** FindQueue orders a find bar's calls. */
export class FindQueue {
  private chain: Promise<unknown> = Promise.resolve()
  private closes = 0

  constructor(private readonly call: FindCall) {}

  /** find asks for text's matches, or steps through them, after the calls
   * before it. current is the box's text when the call's turn comes: a
   * search for other text is skipped. The answer goes to done, a failure
   * to failed. */
  find(tab: string, text: string, step: number, current: () => string, done: (r: FindResult) => void, failed: (e: unknown) => void): void {
    const closes = this.closes
    this.chain = this.chain.then(async () => {
      if (closes !== this.closes || (step === 0 && current() !== text)) return
      try {
        const r = await this.call(tab, text, step)
        if (closes === this.closes && current() === text) done(r)
      } catch (e) {
        failed(e)
      }
    })
  }

  /** close clears tab's highlights once the calls before it are done, and
   * drops those not started. */
  close(tab: string): Promise<void> {
    this.closes++
    const cleared = this.chain.then(() => this.call(tab, '', 0)).then(
      () => {},
      () => {}, // the tab may be gone: nothing left to clear
    )
    this.chain = cleared
    return cleared
  }
}
