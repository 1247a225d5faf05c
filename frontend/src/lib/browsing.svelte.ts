// The person's own browsing, as Chrome's toolbar and shortcuts drive it:
// where the shown tab's history goes, its zoom, the find bar, and what
// each shortcut command does. Components read it; its methods act.
import { api, type NavState } from './api'
import { desk } from './desk.svelte'
import { errorText } from './errors'
import { Newest } from './newest'
import { neighbour, type Command } from './shortcuts'

/** omniboxInput is the address box, which Ctrl+L and Ctrl+T focus. */
function omniboxInput(): HTMLInputElement | null {
  return document.querySelector<HTMLInputElement>('input[name=omnibox]')
}

class Browsing {
  nav: NavState = $state({ canBack: false, canForward: false, zoom: 1 })
  /** findOpen shows the find bar; findSeq grows each Ctrl+F, so an open bar takes the focus again. */
  findOpen = $state(false)
  findSeq = $state(0)
  error = $state('')

  /** away is true while a run's agents fill the main view instead of the tab. */
  get away(): boolean {
    return desk.showRun && !!desk.run
  }

  /** tab is the tab the toolbar acts on: the one shown large. */
  get tab(): string {
    return desk.active
  }

  /** reads keeps the newest read's answer: an older one, read before the tab moved, must not undo it. */
  private readonly reads = new Newest()

  /** refresh reads the shown tab's history and zoom. */
  async refresh(): Promise<void> {
    const id = this.tab
    if (!id) {
      this.reads.heard()
      this.nav = { canBack: false, canForward: false, zoom: 1 }
      return
    }
    try {
      await this.reads.read(() => api.navState(id), (n) => (this.nav = n))
    } catch {
      // A tab closing or an agent taking it: the next tab event refreshes.
    }
  }

  /** run does what a shortcut or a toolbar button asks. */
  async run(cmd: Command): Promise<void> {
    this.error = ''
    try {
      await this.perform(cmd)
    } catch (e) {
      this.error = errorText(e)
    }
  }

  private async perform(cmd: Command): Promise<void> {
    const id = this.tab
    switch (cmd) {
      case 'focus-omnibox':
        omniboxInput()?.focus()
        omniboxInput()?.select()
        return
      case 'new-tab':
        // Focused at once, so what is typed while the tab opens goes there.
        omniboxInput()?.focus()
        omniboxInput()?.select()
        await api.newTab('')
        return
      case 'reopen-tab':
        await api.reopenClosedTab()
        return
      case 'next-tab':
      case 'prev-tab': {
        const next = neighbour(desk.tabs.map((t) => t.id), id, cmd === 'next-tab' ? 1 : -1)
        if (next && next !== id) await api.activateTab(next)
        return
      }
      case 'stop-run':
        if (desk.running) await api.stopRun()
        return
    }
    // The tab's own commands act on the tab shown: none while a run's
    // agents fill the view.
    if (!id || this.away) return
    switch (cmd) {
      case 'close-tab': return api.closeTab(id)
      case 'stop-loading': return api.stopLoading(id)
      case 'reload': return api.reload(id, false)
      case 'hard-reload': return api.reload(id, true)
      // Asked of the tab itself, not of the state last read: a key
      // pressed just after the tab moved finds it out of date. A tab with
      // nowhere to go does nothing, as in Chrome.
      case 'back': return api.goBack(id)
      case 'forward': return api.goForward(id)
      case 'find':
        this.findOpen = true
        this.findSeq++
        return
      case 'zoom-in':
      case 'zoom-out':
      case 'zoom-reset': {
        const z = await api.zoom(id, cmd === 'zoom-in' ? 1 : cmd === 'zoom-out' ? -1 : 0)
        this.nav = { ...this.nav, zoom: z }
        return
      }
    }
  }
}

/** browsing is the one store of the person's browsing. */
export const browsing = new Browsing()
