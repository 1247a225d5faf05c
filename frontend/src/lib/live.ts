// Reads a tab's live frames from the app's loopback endpoint (app/live.go):
// records of [u32 length][JSON header][u32 length][JPEG]. Decoding keeps
// only the newest frame: a frame that arrives while the previous one is
// still being decoded replaces the waiting one, never queues behind it.

export interface FrameHeader {
  seq: number
  w: number
  h: number
  at: number // capture time, Unix ms
}

export interface Frame {
  header: FrameHeader
  bitmap: ImageBitmap
}

/** stream fetches url and calls onFrame for each decoded frame until signal aborts. */
export async function stream(url: string, signal: AbortSignal, onFrame: (f: Frame) => void): Promise<void> {
  const resp = await fetch(url, { signal, cache: 'no-store' })
  if (!resp.ok || !resp.body) throw new Error(`live view: ${resp.status} ${await resp.text()}`)
  const reader = resp.body.getReader()
  let buf = new Uint8Array(0)
  let decoding = false
  let waiting: { header: FrameHeader; jpeg: Uint8Array } | null = null

  const decode = async (header: FrameHeader, jpeg: Uint8Array) => {
    decoding = true
    try {
      const bitmap = await createImageBitmap(new Blob([jpeg as BlobPart], { type: 'image/jpeg' }))
      if (signal.aborted) bitmap.close()
      else onFrame({ header, bitmap })
    } catch {
      // A corrupt frame is skipped; the next one replaces it.
    }
    decoding = false
    if (waiting && !signal.aborted) {
      const w = waiting
      waiting = null
      void decode(w.header, w.jpeg)
    }
  }

  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    const next = new Uint8Array(buf.length + value.length)
    next.set(buf)
    next.set(value, buf.length)
    buf = next
    for (;;) {
      if (buf.length < 4) break
      const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
      const hlen = view.getUint32(0)
      if (buf.length < 8 + hlen) break
      const jlen = view.getUint32(4 + hlen)
      if (buf.length < 8 + hlen + jlen) break
      const header = JSON.parse(new TextDecoder().decode(buf.subarray(4, 4 + hlen))) as FrameHeader
      const jpeg = buf.slice(8 + hlen, 8 + hlen + jlen)
      buf = buf.slice(8 + hlen + jlen)
      if (decoding) waiting = { header, jpeg }
      else void decode(header, jpeg)
    }
  }
}

/** Size is a width and a height in CSS pixels. */
export interface Size {
  w: number
  h: number
}

/** maxFrameSide caps a requested frame's side (browser.MaxScreencastSide). */
export const maxFrameSide = 1920

/** defaultPage is every tab's viewport until a frame says otherwise (browser.Options' default). */
export const defaultPage: Size = { w: 1280, h: 800 }

/** fitInside is the largest size of aspect page that fits in box: the page, whole, letterboxed. */
export function fitInside(box: Size, page: Size): Size {
  if (box.w <= 0 || box.h <= 0 || page.w <= 0 || page.h <= 0) return { w: 0, h: 0 }
  const scale = Math.min(box.w / page.w, box.h / page.h)
  return { w: Math.floor(page.w * scale), h: Math.floor(page.h * scale) }
}

/**
 * frameRequest is the frame size to ask Go for a view of box CSS pixels:
 * device pixels (box × dpr), capped, and rounded up to a step of 32 so a
 * small resize does not restart the screencast. Chromium fits the frame
 * inside it keeping the page's aspect, and never scales up.
 */
export function frameRequest(box: Size, dpr: number): Size {
  const side = (n: number) => Math.min(maxFrameSide, Math.max(64, Math.ceil((n * dpr) / 32) * 32))
  return { w: side(box.w), h: side(box.h) }
}

/**
 * fittedViewport is the viewport, in CSS pixels, that gives a view of box
 * the same shape: the page keeps its width (so it re-lays out as little as
 * possible) and takes the height the view's aspect asks for.
 */
export function fittedViewport(box: Size, page: Size): Size {
  const h = Math.round((page.w * box.h) / box.w)
  return { w: page.w, h: Math.min(4096, Math.max(200, h)) }
}

/** Grid is how a set of tiles is laid out: columns, and each tile's frame size in CSS pixels. */
export interface Grid {
  cols: number
  frame: Size
}

/**
 * bestGrid lays out n tiles of aspect page in an area: the column count
 * that shows each tile's frame largest, each tile as wide as its frame (so
 * no black bars), chrome being the height a tile adds above and below its
 * frame (header, footer) and gap the space between tiles.
 */
export function bestGrid(n: number, area: Size, page: Size, chrome: number, gap: number): Grid {
  let best: Grid = { cols: 1, frame: { w: 0, h: 0 } }
  for (let cols = 1; cols <= Math.max(1, n); cols++) {
    const rows = Math.ceil(n / cols)
    const cell = { w: (area.w - gap * (cols - 1)) / cols, h: (area.h - gap * (rows - 1)) / rows - chrome }
    const frame = fitInside(cell, page)
    if (frame.w > best.frame.w) best = { cols, frame }
  }
  return best
}

/** wheelPixels is a wheel event's delta in CSS pixels, whatever unit the engine reported it in. */
export function wheelPixels(ev: WheelEvent, pageHeight: number): { x: number; y: number } {
  const unit = ev.deltaMode === 1 ? 40 : ev.deltaMode === 2 ? pageHeight : 1
  return { x: ev.deltaX * unit, y: ev.deltaY * unit }
}

/**
 * InputQueue sends a live view's input to Go one event at a time, in order:
 * bound calls run concurrently, and keys sent together arrived shuffled
 * ("hello fromt ph eerson"). A move still waiting is replaced by the next.
 * idle lets a hand-back wait until everything typed has reached the tab.
 */
export class InputQueue {
  private queue: { move: boolean; send: () => Promise<void> }[] = []
  private running: Promise<void> | null = null

  constructor(private onError: (e: Error) => void = () => {}) {}

  enqueue(move: boolean, send: () => Promise<void>) {
    const last = this.queue[this.queue.length - 1]
    if (move && last?.move) this.queue[this.queue.length - 1] = { move, send }
    else this.queue.push({ move, send })
    this.running ??= this.drain()
  }

  /** idle resolves once every event queued so far has been sent. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve()
  }

  private async drain() {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      try {
        await next.send()
      } catch (e) {
        this.onError(e as Error)
      }
    }
    this.running = null
  }
}
