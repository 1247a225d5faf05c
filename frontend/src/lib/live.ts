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
