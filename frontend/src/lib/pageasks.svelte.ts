// What the person's own tabs ask of them — JavaScript dialogs, sign-in
// sheets — and the downloads tray, kept current by Go's events. The live
// view draws a tab's asks over it, the sidebar marks the tabs that ask,
// the tray lists the downloads.
import { api, type Download, type PageAsk } from './api'
import { attempt } from './errors'
import { Newest } from './newest'

class PageAsks {
  asks: PageAsk[] = $state([])
  downloads: Download[] = $state([])
  error = $state('')
  private started = false

  /** start subscribes to Go's events and loads the current state once. */
  start() {
    if (this.started) return
    this.started = true
    const asks = new Newest()
    const downloads = new Newest()
    api.on('page:asks', (v) => {
      asks.heard()
      this.asks = v.asks ?? []
    })
    api.on('downloads:changed', (v) => {
      downloads.heard()
      this.downloads = v.downloads ?? []
    })
    // A reload mid-ask shows what still waits; an ask that comes while
    // this is read is not undone by the older answer.
    void attempt((m) => (this.error = m), async () => {
      await asks.read(api.pageAsks, (v) => (this.asks = v.asks ?? []))
      await downloads.read(api.downloads, (v) => (this.downloads = v.downloads ?? []))
    })
  }

  /** of is the oldest ask waiting on tab, if any. */
  of(tab: string): PageAsk | undefined {
    return this.asks.find((a) => a.tab === tab)
  }

  /** asking reports whether tab waits for an answer (the sidebar's mark). */
  asking(tab: string): boolean {
    return this.asks.some((a) => a.tab === tab)
  }

  /** done drops an answered ask at once; Go's next event confirms it. */
  done(ask: PageAsk) {
    this.asks = this.asks.filter((a) => a !== ask)
  }
}

export const pageAsks = new PageAsks()

/** byteSize is n bytes in the unit a person reads, as Go's Download.String says it. */
export function byteSize(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GB`
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MB`
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} kB`
  return `${n} bytes`
}
