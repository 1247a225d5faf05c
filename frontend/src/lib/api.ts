// The one place the UI talks to Go. Wails rejects a bound call's promise with
// a bare string; every call here turns that into a real Error so components
// can rely on `err.message` and `instanceof Error`.
import * as Go from '../../wailsjs/go/app/App'
import { EventsOn } from '../../wailsjs/runtime/runtime'
import type {
  AuthAnswer, BrowserState, Card, DownloadsView, PageAsksView, PermissionDecision, CheckRow, ConfirmAnswer, Events, FindResult, KeyInput, LiveEndpoint, NavState, PointerInput, ProcInfo, Replay,
  RunSummary, RunView, Settings, State, SubmitResult, TabInfo, TabsView,
} from './types.gen'

// Everything Go and the UI exchange is typed in types.gen.ts, generated
// from the Go types (tstypes_test.go fails when it is stale); Wails'
// bindings are used only to call the methods.
export type * from './types.gen'

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

/**
 * view calls a bound method whose result the UI keeps. Wails declares the
 * result as one of its classes, but it arrives as plain JSON: the same
 * shape the events carry, which types.gen.ts gives exactly.
 */
function view<T>(op: string, fn: () => Promise<unknown>): Promise<T> {
  return call(op, fn) as Promise<T>
}

/**
 * wire passes a plain value where a bound method's Wails declaration wants
 * one of its classes: the bridge sends JSON either way, and the value has
 * the Go type's exact shape from types.gen.ts.
 */
function wire<T>(v: unknown): T {
  return v as T
}

export const api = {
  state: () => view<State>('state', () => Go.State()),
  saveSettings: (s: Settings) => view<State>('save settings', () => Go.SaveSettings(wire(s))),
  setAPIKey: (key: string) => view<State>('set API key', () => Go.SetAPIKey(key)),
  forgetAPIKey: () => view<State>('forget API key', () => Go.ForgetAPIKey()),
  useLocalServer: () => view<State>('use local server', () => Go.UseLocalServer()),

  browserState: () => view<BrowserState>('browser state', () => Go.BrowserState()),
  tabs: () => view<TabsView>('tabs', () => Go.Tabs()),
  newTab: (url: string) => view<TabInfo>('new tab', () => Go.NewTab(url)),
  closeTab: (id: string) => call('close tab', () => Go.CloseTab(id)),
  activateTab: (id: string) => call('switch tab', () => Go.ActivateTab(id)),
  submit: (text: string, tabs: string[]) => view<SubmitResult>('submit', () => Go.Submit(text, tabs)),
  /** submitFiles is submit with the files dropped on the omnibox, which make the text a task. */
  submitFiles: (text: string, tabs: string[], files: string[]) => view<SubmitResult>('submit', () => Go.SubmitFiles(text, tabs, files)),
  stopRun: () => call('stop', () => Go.StopRun()),
  run: () => view<RunView | null>('run', () => Go.Run()),
  correct: (text: string) => call('correct', () => Go.Correct(text)),
  handTab: (pid: number, tab: string) => view<ProcInfo>('hand tab', () => Go.HandTab(pid, tab)),
  takeOver: (pid: number) => view<ProcInfo>('take over', () => Go.TakeOver(pid)),
  handBack: (pid: number, note: string) => view<ProcInfo>('hand back', () => Go.HandBack(pid, note)),
  cards: () => view<Card[] | null>('cards', () => Go.Cards()),
  answerConfirm: (id: string, decision: ConfirmAnswer) => call('answer', () => Go.AnswerConfirm(id, decision)),
  answerAsk: (id: string, option: string) => call('answer', () => Go.AnswerAsk(id, option)),
  history: () => view<RunSummary[] | null>('history', () => Go.History()),
  replay: (id: string) => view<Replay>('replay', () => Go.Replay(id)),
  /** doctor runs vroom doctor's checks (seconds: a model call, a browser launch each). */
  doctor: () => view<CheckRow[]>('check', () => Go.Doctor()),
  liveEndpoint: () => view<LiveEndpoint>('live view', () => Go.LiveEndpoint()),
  pointer: (tab: string, ev: PointerInput) => call('pointer', () => Go.PointerInput(tab, wire(ev))),
  key: (tab: string, ev: KeyInput) => call('key', () => Go.KeyInput(tab, wire(ev))),
  /** fitView resizes a taken-over tab's viewport to width x height CSS pixels; 0, 0 restores it. */
  fitView: (tab: string, width: number, height: number) => call('fit view', () => Go.FitView(tab, width, height)),
  /** The person's browsing: the toolbar, the view's size, zoom, find (navigation.go, viewport.go, find.go). */
  navState: (tab: string) => view<NavState>('navigation', () => Go.NavState(tab)),
  goBack: (tab: string) => call('back', () => Go.GoBack(tab)),
  goForward: (tab: string) => call('forward', () => Go.GoForward(tab)),
  reload: (tab: string, bypassCache: boolean) => call('reload', () => Go.Reload(tab, bypassCache)),
  stopLoading: (tab: string) => call('stop', () => Go.StopLoading(tab)),
  reopenClosedTab: () => view<TabInfo>('reopen tab', () => Go.ReopenClosedTab()),
  showView: (tab: string, w: number, h: number, dpr: number) => call('show view', () => Go.ShowView(tab, w, h, dpr)),
  zoom: (tab: string, step: number) => call('zoom', () => Go.Zoom(tab, step)),
  findInPage: (tab: string, text: string, step: number) => view<FindResult>('find', () => Go.FindInPage(tab, text, step)),
  /** personView serves the tab shown large to the person's view (pickers, menu, cursor), or stops. */
  personView: (tab: string, on: boolean) => call('person view', () => Go.PersonView(tab, on)),
  choosePicker: (tab: string, id: number, value: string) => call('choose', () => Go.ChoosePicker(tab, id, value)),
  dismissPicker: (tab: string, id: number) => call('dismiss', () => Go.DismissPicker(tab, id)),
  paste: (tab: string) => call('paste', () => Go.Paste(tab)),
  copy: (tab: string) => call('copy', () => Go.Copy(tab)),
  copyText: (text: string) => call('copy', () => Go.CopyText(text)),
  insertText: (tab: string, text: string) => call('type', () => Go.InsertText(tab, text)),
  openInNewTab: (url: string) => view<TabInfo>('open link in new tab', () => Go.OpenInNewTab(url)),
  menuNav: (tab: string, kind: 'back' | 'forward' | 'reload') => call(kind, () => Go.MenuNav(tab, kind)),
  unmute: () => call('unmute', () => Go.Unmute()),
  mute: () => call('mute', () => Go.Mute()),
  setAgentMuted: (agent: string, muted: boolean) => call('mute agent', () => Go.SetAgentMuted(agent, muted)),
  /** setAgentTabSound lets an agent's page play sound, or mutes it again (its default). */
  setAgentTabSound: (pid: number, on: boolean) => call('page sound', () => Go.SetAgentTabSound(pid, on)),

  // What the person's tabs ask of them (pageasks.svelte.ts).
  pageAsks: () => view<PageAsksView>('page asks', () => Go.PageAsks()),
  answerDialog: (tab: string, accept: boolean, text: string) => call('answer the dialog', () => Go.AnswerDialog(tab, accept, text)),
  answerAuth: (tab: string, ans: AuthAnswer) => call('sign in', () => Go.AnswerAuth(tab, wire(ans))),
  answerPermission: (tab: string, id: number, decision: PermissionDecision) => call('answer the permission request', () => Go.AnswerPermission(tab, id, decision)),
  forgetPermission: (origin: string, name: string) => view<State>('forget the permission', () => Go.ForgetPermission(origin, name)),
  forgetZoom: (site: string) => view<State>('reset the zoom', () => Go.ForgetZoom(site)),
  downloads: () => view<DownloadsView>('downloads', () => Go.Downloads()),
  openDownload: (id: string) => call('open the download', () => Go.OpenDownload(id)),
  showDownload: (id: string) => call('show the download', () => Go.ShowDownload(id)),

  /** on subscribes to a Go → UI event; the returned function unsubscribes. */
  on<K extends keyof Events>(name: K, cb: (data: Events[K]) => void): () => void {
    return EventsOn(name, (data: Events[K]) => cb(data))
  },
}
