// The one place the UI talks to Go. Wails rejects a bound call's promise with
// a bare string; every call here turns that into a real Error so components
// can rely on `err.message` and `instanceof Error`.
import * as Go from '../../wailsjs/go/app/App'
import { EventsOn } from '../../wailsjs/runtime/runtime'
import { agents, app, browser } from '../../wailsjs/go/models'

// Plain data: the generated classes carry a helper method that form copies lack.
export type Settings = Omit<app.Settings, 'convertValues'>
export type State = app.State
export type LocalServer = app.LocalServer
export type TabInfo = browser.TabInfo
export type TabsView = Omit<app.TabsView, 'convertValues'>
export type RunView = Omit<app.RunView, 'convertValues'>
export type RunSummary = Omit<app.RunSummary, 'convertValues'>
export type Replay = Omit<app.Replay, 'convertValues'>
export type ReplayEntry = app.ReplayEntry
export type Card = app.Card
export type ProcInfo = Omit<agents.ProcInfo, 'convertValues'>
export type Entry = Omit<agents.Entry, 'convertValues'>
export type Usage = agents.Usage
export type LiveEndpoint = app.LiveEndpoint
export type BrowserState = app.BrowserState
export type PointerInput = browser.PointerInput
export type KeyInput = browser.KeyInput

/** FloorState is who holds the floor (agents.FloorState). */
export interface FloorState {
  speaker?: string
  since?: string
  left?: number
  playing?: boolean
}

/** StepInfo is one executed tool call (agents.StepInfo). */
export interface StepInfo {
  agent: string
  pid?: number
  step: number
  tool: string
  args?: string
  outcome: string
  effect: boolean
  url?: string
}

/** RunInfo is a run's start or end (agents.RunInfo). */
export interface RunInfo {
  state: string
  task?: string
  summary?: string
  success: boolean
}

/** RoomEvent is one event of the running run's room (agents.Event). */
export type RoomEvent =
  | { seq: number; at: string; kind: 'transcript'; agent?: string; data: Entry }
  | { seq: number; at: string; kind: 'floor'; agent?: string; data: FloorState }
  | { seq: number; at: string; kind: 'process'; agent?: string; data: ProcInfo }
  | { seq: number; at: string; kind: 'step'; agent?: string; data: StepInfo }
  | { seq: number; at: string; kind: 'usage'; agent?: string; data: Usage }
  | { seq: number; at: string; kind: 'confirm' | 'ask'; agent?: string; data: unknown }
  | { seq: number; at: string; kind: 'run'; agent?: string; data: RunInfo }

/** MutedView says whose voices are muted in a run (app.MutedView). */
export interface MutedView {
  run_id: string
  agents: string[]
}

/** Events maps each namespaced Go → UI event to its payload. */
export interface Events {
  'tabs:changed': TabsView
  'browser:state': BrowserState
  'room:event': RoomEvent
  'run:state': RunView
  'card:open': Card
  'card:closed': string
  'voice:muted': MutedView
}

/** GoError is a failure reported by the Go side (or by the bridge itself). */
export class GoError extends Error {
  readonly op: string
  constructor(op: string, message: string) {
    super(message)
    this.name = 'GoError'
    this.op = op
  }
}

async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof Error) throw new GoError(op, e.message)
    throw new GoError(op, typeof e === 'string' ? e : JSON.stringify(e))
  }
}

export const api = {
  state: () => call('state', () => Go.State()),
  saveSettings: (s: Settings) => call('save settings', () => Go.SaveSettings(app.Settings.createFrom(s))),
  setAPIKey: (key: string) => call('set API key', () => Go.SetAPIKey(key)),
  forgetAPIKey: () => call('forget API key', () => Go.ForgetAPIKey()),
  useLocalServer: () => call('use local server', () => Go.UseLocalServer()),

  browserState: () => call('browser state', () => Go.BrowserState()),
  tabs: (): Promise<TabsView> => call('tabs', () => Go.Tabs()),
  newTab: (url: string) => call('new tab', () => Go.NewTab(url)),
  closeTab: (id: string) => call('close tab', () => Go.CloseTab(id)),
  activateTab: (id: string) => call('switch tab', () => Go.ActivateTab(id)),
  submit: (text: string, tabs: string[]) => call('submit', () => Go.Submit(text, tabs)),
  stopRun: () => call('stop', () => Go.StopRun()),
  run: (): Promise<RunView | null> => call('run', () => Go.Run()),
  correct: (text: string) => call('correct', () => Go.Correct(text)),
  handTab: (pid: number, tab: string): Promise<ProcInfo> => call('hand tab', () => Go.HandTab(pid, tab)),
  takeOver: (pid: number): Promise<ProcInfo> => call('take over', () => Go.TakeOver(pid)),
  handBack: (pid: number, note: string): Promise<ProcInfo> => call('hand back', () => Go.HandBack(pid, note)),
  cards: () => call('cards', () => Go.Cards()),
  answerConfirm: (id: string, decision: 'deny' | 'once' | 'run') => call('answer', () => Go.AnswerConfirm(id, decision)),
  answerAsk: (id: string, option: string) => call('answer', () => Go.AnswerAsk(id, option)),
  history: (): Promise<RunSummary[]> => call('history', () => Go.History()),
  replay: (id: string): Promise<Replay> => call('replay', () => Go.Replay(id)),
  liveEndpoint: () => call('live view', () => Go.LiveEndpoint()),
  pointer: (tab: string, ev: PointerInput) => call('pointer', () => Go.PointerInput(tab, ev)),
  key: (tab: string, ev: KeyInput) => call('key', () => Go.KeyInput(tab, ev)),
  unmute: () => call('unmute', () => Go.Unmute()),
  mute: () => call('mute', () => Go.Mute()),
  micLevel: () => call('mic level', () => Go.MicLevel()),
  setAgentMuted: (agent: string, muted: boolean) => call('mute agent', () => Go.SetAgentMuted(agent, muted)),

  /** on subscribes to a Go → UI event; the returned function unsubscribes. */
  on<K extends keyof Events>(name: K, cb: (data: Events[K]) => void): () => void {
    return EventsOn(name, (data: Events[K]) => cb(data))
  },
}
