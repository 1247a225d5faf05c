import { afterEach, describe, expect, it, vi } from 'vitest'
import { bestGrid, fitInside, fittedViewport, frameRequest, InputQueue, stream, wheelPixels, type Frame, type FrameHeader } from './live'

describe('fitInside', () => {
  it('letterboxes the whole page in the box', () => {
    expect(fitInside({ w: 640, h: 800 }, { w: 1280, h: 800 })).toEqual({ w: 640, h: 400 })
    expect(fitInside({ w: 2000, h: 400 }, { w: 1280, h: 800 })).toEqual({ w: 640, h: 400 })
    expect(fitInside({ w: 1001, h: 1001 }, { w: 3, h: 2 })).toEqual({ w: 1001, h: 667 })
  })

  it('is nothing for an empty box or page', () => {
    expect(fitInside({ w: 0, h: 500 }, { w: 1280, h: 800 })).toEqual({ w: 0, h: 0 })
    expect(fitInside({ w: 500, h: 500 }, { w: 1280, h: 0 })).toEqual({ w: 0, h: 0 })
  })
})

describe('frameRequest', () => {
  it('asks for device pixels in steps of 32', () => {
    expect(frameRequest({ w: 300, h: 200 }, 1)).toEqual({ w: 320, h: 224 })
    expect(frameRequest({ w: 300, h: 200 }, 2)).toEqual({ w: 608, h: 416 })
    // A small resize asks for the same frames: the screencast goes on.
    expect(frameRequest({ w: 301, h: 205 }, 1)).toEqual(frameRequest({ w: 300, h: 200 }, 1))
  })

  it('caps a side at maxFrameSide and never goes below 64', () => {
    expect(frameRequest({ w: 3000, h: 10 }, 1)).toEqual({ w: 1920, h: 64 })
    expect(frameRequest({ w: 1000, h: 1000 }, 3)).toEqual({ w: 1920, h: 1920 })
  })
})

describe('fittedViewport', () => {
  it('keeps the page width and takes the view’s aspect', () => {
    expect(fittedViewport({ w: 1000, h: 500 }, { w: 1280, h: 800 })).toEqual({ w: 1280, h: 640 })
  })

  it('keeps the height between 200 and 4096', () => {
    expect(fittedViewport({ w: 100, h: 10000 }, { w: 1280, h: 0 })).toEqual({ w: 1280, h: 4096 })
    expect(fittedViewport({ w: 10000, h: 100 }, { w: 1280, h: 0 })).toEqual({ w: 1280, h: 200 })
  })
})

describe('bestGrid', () => {
  const page = { w: 1280, h: 800 }

  it('gives one tile the whole area', () => {
    expect(bestGrid(1, { w: 1280, h: 900 }, page, 100, 8)).toEqual({ cols: 1, frame: { w: 1280, h: 800 } })
  })

  it('picks the column count that shows each frame largest', () => {
    expect(bestGrid(4, { w: 2000, h: 900 }, page, 0, 0)).toEqual({ cols: 2, frame: { w: 720, h: 450 } })
    expect(bestGrid(4, { w: 4000, h: 400 }, page, 0, 0)).toEqual({ cols: 4, frame: { w: 640, h: 400 } })
    expect(bestGrid(4, { w: 700, h: 2000 }, page, 0, 0).cols).toBe(1)
  })

  it('leaves room for each tile’s chrome and the gaps', () => {
    const g = bestGrid(2, { w: 1000, h: 1000 }, page, 50, 10)
    // One column: two rows of (1000 - 10) / 2 - 50 = 445 px, fit to 712x445.
    expect(g).toEqual({ cols: 1, frame: { w: 712, h: 445 } })
  })
})

describe('wheelPixels', () => {
  const wheel = (deltaMode: number, deltaX: number, deltaY: number) => ({ deltaMode, deltaX, deltaY }) as WheelEvent

  it('turns lines and pages into pixels', () => {
    expect(wheelPixels(wheel(0, 3, -120), 800)).toEqual({ x: 3, y: -120 })
    expect(wheelPixels(wheel(1, 0, 3), 800)).toEqual({ x: 0, y: 120 })
    expect(wheelPixels(wheel(2, 1, 1), 800)).toEqual({ x: 800, y: 800 })
  })
})

// deferred is a promise the test settles.
function deferred<T = void>() {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('InputQueue', () => {
  it('sends one event at a time, in order', async () => {
    const q = new InputQueue()
    const started: string[] = []
    const gates = [deferred(), deferred(), deferred()]
    for (const [i, name] of ['h', 'i', '!'].entries()) {
      q.enqueue(false, () => {
        started.push(name)
        return gates[i].promise
      })
    }
    expect(started).toEqual(['h'])
    gates[0].resolve()
    await vi.waitFor(() => expect(started).toEqual(['h', 'i']))
    gates[1].resolve()
    gates[2].resolve()
    await q.idle()
    expect(started).toEqual(['h', 'i', '!'])
  })

  it('replaces a waiting move with the next, never a key', async () => {
    const q = new InputQueue()
    const sent: string[] = []
    const first = deferred()
    const send = (name: string) => () => {
      sent.push(name)
      return name === 'down' ? first.promise : Promise.resolve()
    }
    q.enqueue(false, send('down'))
    q.enqueue(true, send('move 1'))
    q.enqueue(true, send('move 2'))
    q.enqueue(false, send('key'))
    q.enqueue(true, send('move 3'))
    q.enqueue(true, send('move 4'))
    first.resolve()
    await q.idle()
    expect(sent).toEqual(['down', 'move 2', 'key', 'move 4'])
  })

  it('reports a failed send and goes on with the next', async () => {
    const errors: string[] = []
    const q = new InputQueue((e) => errors.push(e.message))
    const sent: string[] = []
    q.enqueue(false, () => Promise.reject(new Error('tab closed')))
    q.enqueue(false, () => {
      sent.push('next')
      return Promise.resolve()
    })
    await q.idle()
    expect(errors).toEqual(['tab closed'])
    expect(sent).toEqual(['next'])
  })

  it('is idle at once with nothing queued', async () => {
    await expect(new InputQueue().idle()).resolves.toBeUndefined()
  })
})

// record encodes a frame as app/live.go writes it.
function record(header: FrameHeader, jpegBytes: number): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(8 + h.length + jpegBytes)
  const view = new DataView(out.buffer)
  view.setUint32(0, h.length)
  out.set(h, 4)
  view.setUint32(4 + h.length, jpegBytes)
  out.fill(0xff, 8 + h.length)
  return out
}

const header = (seq: number): FrameHeader => ({ seq, w: 1280, h: 800, at: 1_700_000_000_000 + seq })

// liveServer stands in for the loopback endpoint: the test pushes bytes,
// and decoding waits until the test lets each frame's bitmap through.
function liveServer() {
  let push!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) })
  const decodes: { size: number; done: ReturnType<typeof deferred<ImageBitmap>> }[] = []
  const closed: number[] = []
  vi.stubGlobal('fetch', () => Promise.resolve(new Response(body)))
  vi.stubGlobal('createImageBitmap', (blob: Blob) => {
    const done = deferred<ImageBitmap>()
    decodes.push({ size: blob.size, done })
    return done.promise
  })
  const bitmap = (n: number) => ({ width: 640, height: 400, close: () => closed.push(n) }) as unknown as ImageBitmap
  return { push, decodes, closed, bitmap }
}

describe('stream', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('decodes records split anywhere across reads', async () => {
    const srv = liveServer()
    const frames: Frame[] = []
    const done = stream('http://live', new AbortController().signal, (f) => frames.push(f))
    const bytes = new Uint8Array([...record(header(1), 10), ...record(header(2), 20)])
    for (const cut of [[0, 3], [3, 30], [30, 31]]) srv.push.enqueue(bytes.slice(cut[0], cut[1]))
    srv.push.enqueue(bytes.slice(31))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(1))
    expect(srv.decodes[0].size).toBe(10)
    srv.decodes[0].done.resolve(srv.bitmap(1))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(2))
    expect(srv.decodes[1].size).toBe(20)
    srv.decodes[1].done.resolve(srv.bitmap(2))
    srv.push.close()
    await done
    await vi.waitFor(() => expect(frames.map((f) => f.header.seq)).toEqual([1, 2]))
    expect(frames[1].header).toEqual(header(2))
  })

  it('keeps only the newest frame while one decodes', async () => {
    const srv = liveServer()
    const seqs: number[] = []
    const read = stream('http://live', new AbortController().signal, (f) => seqs.push(f.header.seq))
    srv.push.enqueue(record(header(1), 4))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(1))
    for (const seq of [2, 3, 4]) srv.push.enqueue(record(header(seq), 4))
    srv.push.close()
    await read // every record is read while the first still decodes
    expect(srv.decodes.length).toBe(1)
    srv.decodes[0].done.resolve(srv.bitmap(1))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(2))
    srv.decodes[1].done.resolve(srv.bitmap(4))
    await vi.waitFor(() => expect(seqs).toEqual([1, 4]))
    expect(srv.decodes.length).toBe(2)
  })

  it('closes a frame that finishes decoding after the view let go', async () => {
    const srv = liveServer()
    const ctl = new AbortController()
    const seqs: number[] = []
    void stream('http://live', ctl.signal, (f) => seqs.push(f.header.seq)).catch(() => {}) // the abort ends the read
    srv.push.enqueue(record(header(1), 4))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(1))
    ctl.abort()
    srv.decodes[0].done.resolve(srv.bitmap(1))
    await vi.waitFor(() => expect(srv.closed).toEqual([1]))
    expect(seqs).toEqual([])
  })

  it('skips a frame that does not decode', async () => {
    const srv = liveServer()
    const seqs: number[] = []
    void stream('http://live', new AbortController().signal, (f) => seqs.push(f.header.seq))
    srv.push.enqueue(record(header(1), 4))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(1))
    srv.decodes[0].done.reject(new Error('not a JPEG'))
    srv.push.enqueue(record(header(2), 4))
    await vi.waitFor(() => expect(srv.decodes.length).toBe(2))
    srv.decodes[1].done.resolve(srv.bitmap(2))
    await vi.waitFor(() => expect(seqs).toEqual([2]))
  })

  it('fails with what the endpoint said when it refuses', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('bad token', { status: 403 })))
    await expect(stream('http://live', new AbortController().signal, () => {})).rejects.toThrow('live view: 403 bad token')
  })
})
