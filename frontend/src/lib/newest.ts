// A store kept by Go's events and by reads of Go's state: an event can
// overtake the answer to a read made before it was sent, and two reads
// can answer out of order (each call is served on its own). Newest keeps
// the newest of what reaches it.

/** Newest orders one value's events and reads: a read's answer is kept
 * only if no event came, and no other read began, after it began. */
export class Newest {
  private n = 0

  /** heard notes an event that set the value. */
  heard(): void {
    this.n++
  }

  /** read hands get's answer to set, unless something newer came first.
   * It reports whether the answer was kept. */
  async read<T>(get: () => Promise<T>, set: (v: T) => void): Promise<boolean> {
    const at = ++this.n
    const v = await get()
    if (at !== this.n) return false
    set(v)
    return true
  }
}
