// The UI's one store: tabs, the run, its agents, the room, the cards, the
// microphone, Go's notices and the replay player, kept current by
// the Go side's events. Components read it; only its methods change it,
// which the type they see (Frozen) enforces: writing a field from a
// component does not type-check.
import { api, type TabInfo, type RunView, type ProcInfo, type Entry, type Card, type FloorState, type StepInfo, type Usage, type RunSummary, type ModelWait } from './api'
import { withWait } from './format'
import { Newest } from './newest'
import { attempt } from './errors'
import { Mic } from './mic.svelte'
import { browserClock } from './playback'
import { ReplayPlayer } from './replay.svelte'

/** A tile's last step, shown under its sub-task. */
export interface LastStep {
  step: number
  tool: string
  outcome: string
  effect: boolean
  args?: string
}

/** Frozen is T as readers see it: every field read-only, however deep; methods callable. */
export type Frozen<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly Frozen<E>[]
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T

class Desk {
  tabs: TabInfo[] = $state([])
  active = $state('')
  browserReady = $state(false)
  browserError = $state('')
  run: RunView | null = $state(null)
  procs: ProcInfo[] = $state([])
  steps: Record<string, LastStep> = $state({})
  /** waits are the model calls taking long, by agent, while they last (the planner's included). */
  waits: Record<string, ModelWait> = $state({})
  transcript: Entry[] = $state([])
  floor: FloorState = $state({})
  usage: Usage = $state({ prompt_tokens: 0, completion_tokens: 0, cost: 0 })
  cards: Card[] = $state([])
  /** muted are the agents whose voices the person muted in this run. */
  muted: string[] = $state([])
  history: RunSummary[] = $state([])
  /** showRun keeps a finished run's tiles up until the person dismisses them. */
  showRun = $state(false)
  /** chips are tabs attached to the next task (dropped on the omnibox or the empty grid). */
  chips: string[] = $state([])
  error = $state('')
  /** notice is Go's last word on something that stopped nothing ('' once dismissed). */
  notice = $state('')
  /** replay plays a past run's timeline in the main area. */
  readonly replay = new ReplayPlayer(browserClock)

  running = $derived(this.run?.state === 'running')
  /** mic is the person's microphone and push-to-talk, open only within the running run. */
  readonly mic = new Mic(api, () => (this.running ? (this.run?.id ?? '') : ''))

  private started = false

  /** start subscribes to Go's events and loads the current state once. */
  async start() {
    if (this.started) return
    this.started = true
    api.on('tabs:changed', (v) => {
      this.tabsOrder.heard()
      this.setTabs(v.tabs ?? [], v.active)
    })
    api.on('browser:state', (s) => {
      this.browserOrder.heard()
      this.browserReady = s.ready
      this.browserError = s.error ?? ''
      if (s.ready) void this.refreshTabs()
    })
    api.on('run:state', (v) => this.setRun(v))
    api.on('room:event', (e) => {
      switch (e.kind) {
        case 'transcript':
          this.addEntry(e.data)
          break
        case 'floor':
          this.floor = e.data
          break
        case 'process':
          this.setProc(e.data)
          break
        case 'step':
          this.setStep(e.data)
          break
        case 'usage':
          this.usage = e.data
          break
        case 'model_wait':
          this.waits = withWait(this.waits, e.data)
          break
      }
    })
    api.on('card:open', (c) => {
      if (!this.cards.some((x) => x.id === c.id)) this.cards.push(c)
    })
    api.on('card:closed', (id) => this.closeCard(id))
    api.on('voice:muted', (m) => {
      if (m.run_id === this.run?.id) this.muted = m.agents ?? []
    })
    api.on('mic:level', (m) => this.mic.heard(m.level))
    api.on('app:notice', (text) => {
      this.notice = text
    })
    await attempt((m) => (this.error = m), async () => {
      await this.browserOrder.read(api.browserState, (b) => {
        this.browserReady = b.ready
        this.browserError = b.error ?? ''
      })
      await this.refreshTabs()
      const r = await api.run()
      if (r) this.setRun(r)
      this.cards = (await api.cards()) ?? []
      await this.loadHistory()
    })
  }

  /** tabsOrder and browserOrder keep the newest tab list and browser state, read or sent. */
  private readonly tabsOrder = new Newest()
  private readonly browserOrder = new Newest()

  /** refreshTabs reads the tab list, unless an event brings a newer one first. */
  async refreshTabs() {
    await this.tabsOrder.read(api.tabs, (v) => this.setTabs(v.tabs ?? [], v.active))
  }

  async loadHistory() {
    this.history = (await api.history()) ?? []
  }

  private setTabs(tabs: TabInfo[], active: string) {
    this.tabs = tabs
    this.active = active
  }

  private setRun(v: RunView) {
    const fresh = this.run?.id !== v.id
    this.run = v
    if (fresh) {
      this.procs = []
      this.steps = {}
      this.waits = {}
      this.floor = {}
      this.transcript = v.transcript ?? []
      this.showRun = true
    }
    for (const p of v.procs ?? []) this.setProc(p)
    this.usage = v.usage
    this.muted = v.muted ?? []
    if (v.state !== 'running') {
      // Nobody holds the floor of a run that has ended, nor waits on a model.
      this.floor = {}
      this.waits = {}
      void this.loadHistory()
    }
  }

  private setProc(p: ProcInfo) {
    const i = this.procs.findIndex((x) => x.pid === p.pid)
    if (i >= 0) this.procs[i] = p
    else this.procs.push(p)
  }

  private setStep(s: StepInfo) {
    this.steps[s.agent] = { step: s.step, tool: s.tool, outcome: s.outcome, effect: s.effect, args: s.args }
  }

  private addEntry(e: Entry) {
    const i = this.transcript.findIndex((x) => x.seq === e.seq)
    if (i >= 0) this.transcript[i] = e
    else this.transcript.push(e)
  }

  /** closeCard takes a card down: answered here, or closed by Go. */
  closeCard(id: string) {
    this.cards = this.cards.filter((c) => c.id !== id)
  }

  /** dismissNotice takes Go's notice down. */
  dismissNotice() {
    this.notice = ''
  }

  /** dismissRun returns the main view to the active tab. */
  dismissRun() {
    this.showRun = false
  }

  /** setMuted mutes or unmutes an agent's voice; the event confirms it. */
  async setMuted(agent: string, muted: boolean) {
    await api.setAgentMuted(agent, muted)
    if (muted && !this.muted.includes(agent)) this.muted.push(agent)
    if (!muted) this.muted = this.muted.filter((a) => a !== agent)
  }

  /**
   * attach makes the dropped tab id a chip for the next task. A tab an agent
   * holds cannot be: the returned message says why ('' when attached).
   */
  attach(id: string): string {
    const holder = this.holder(id)
    if (holder) return `${holder} is working in that tab; stop it first.`
    if (id && !this.chips.includes(id)) this.chips.push(id)
    return ''
  }

  /** detach removes a chip. */
  detach(id: string) {
    this.chips = this.chips.filter((c) => c !== id)
  }

  /** setChips makes ids the next task's tabs, in place of any chips. */
  setChips(ids: string[]) {
    this.chips = [...ids]
  }

  /** takeChips returns the chips for a task being sent and clears them. */
  takeChips(): string[] {
    const ids = [...this.chips]
    this.chips = []
    return ids
  }

  /** holder is who holds the tab id, or ''. */
  holder(id: string): string {
    return this.tabs.find((t) => t.id === id)?.owner ?? ''
  }
}

/** desk is the one store of the window. */
export const desk: Frozen<Desk> = new Desk()
