// Package app is Vroom's desktop face and the binary's entry: Main
// dispatches to the window (no arguments) or to cli's commands (run,
// replay, doctor, mcp, observe). It holds what the window needs and
// nothing the other faces share: the object bound to the UI (App, its
// methods and the events it emits), the desktop session, the cards
// waiting for the person, the live view, take-over and the voice
// controls. Runs are built by runner.BuildRun like every face's; settings
// and the key are config's, history and replay runlog's, Settings' Check
// doctor's.
//
// It may import every package of the app tree and Wails; only main
// imports it.
//
// # The window
//
// In the window, SIGINT and SIGTERM are Wails' own: its handler ends the
// GTK loop, which runs OnShutdown, so a signal takes the close button's
// path (the run killed, the browser closed, then exit). Without a usable
// X11 or Wayland socket, vroom prints one line (ErrNoDisplay) and exits 1.
//
// # The desktop session
//
// The window appears at once; the session (a headless Chromium on the
// persistent profile in the data directory's profile/, and the live-view
// server) starts at Wails' OnDomReady, because launching Chromium with the
// window held its first paint back by seconds on two cores
// (BenchmarkDesktopStartup), or at the first binding that needs the
// browser. The person sees tabs only through the live view. The session's
// lock guards fields only; nothing slow runs under it: StartRun reserves
// the session's one run slot, builds the run with no lock held, then
// installs it. A browser that dies is relaunched, and a run's agents in it
// are told their tabs are gone. With endpoints in Settings, the person's
// own tabs stay local and the agents' tabs go to the remote pool; the live
// view and take-over find a tab in either (findTab).
//
// # Live view
//
// Frames do not go through the Wails event bus: a loopback HTTP server
// with a per-launch token streams [u32 len][JSON {seq,w,h,at}][u32
// len][JPEG] records to a fetch in the UI, which decodes only the newest
// frame onto a canvas. A tile asks for frames at the size it is shown (w,
// h: the view × devicePixelRatio, rounded up to 32 px, capped at 1920);
// one screencast per tab runs at the largest size any subscriber wants. A
// tile out of view aborts its fetch, which ends the subscription, and
// Chromium's screencast stops when nobody watches.
//
// # The person's browsing
//
// The person's own tab is laid out at the size the main view shows it, at
// the window's pixel ratio (ShowView; agents' tabs keep their viewport),
// and zoomed per site as Chrome does (Zoom: the viewport laid out narrower
// and drawn larger; each site's zoom kept in Settings, Browser.Zoom, for
// its next tabs and the next start, ForgetZoom from Settings). The
// desktop's Chromium draws its surfaces at the pixel ratio of the
// window's screen (personBrowser), so on a HiDPI screen the person's
// frames carry every device pixel of the view. The toolbar's back, forward, reload and stop, find in
// page and a closed tab reopened are bindings on the shown tab
// (navigation.go, find.go); a window the shown tab opens is shown in its
// place, a link opened in the background stays there.
//
// # Take-over
//
// TakeOver pauses an agent (in agents) and lets the person drive its tab
// from the tile under the agent's lease, so no other agent can take it.
// FitView resizes the tab's viewport to the view's shape so a full-height
// app shows whole; HandBack restores it before the agent resumes. Pointer
// input maps through the viewport of the frame on screen; the UI sends
// input one event at a time, in order, and the hand-back waits until all
// of it has reached the tab.
//
// # The person's own browsing
//
// The desktop's Chromium is the person's browser, set up as Chrome is
// (personBrowser): every JavaScript dialog, password request and
// permission request held for the person (permissions answered for good
// are remembered in Settings and set on the browser at its start), downloads into ~/Downloads or Settings' folder, sound on. A
// run sets its own on the tabs it leases (runner: alerts answered and
// reported, its own download folder, muted), and a tab back from a run
// gets the person's again. followAsks turns what the person's tabs ask
// into page:asks (the sheet drawn over the tab's view, the sidebar's
// mark) and downloads:changed (the tray) and opens the desktop's file
// dialog for a file input; it never waits on an answer, so a dialog
// nobody answers blocks only its own page. Files dropped on the omnibox
// are the run's files (SubmitFiles).
//
// # The person's own tab
//
// Headless Chromium paints no popup widget and no context menu, sets no
// cursor and keeps its own clipboard. While the UI shows the active tab
// large it calls PersonView, which serves that tab's page to the view
// (browser.Tab.ServePerson): select, date, time, colour and datalist
// popups and the context menu arrive as EventPerson and are drawn by the
// UI where Chrome draws them, the choice goes back through ChoosePicker,
// the cursor shape the page asks for goes on the view, and the page's
// scrollbars show. What a copy or cut in the page took goes to the
// desktop's clipboard (Wails'); Paste brings the desktop's text in, with
// the page's paste event; InsertText types an emoji or an input method's
// text whole. Agents' tabs are never served: they choose with the select
// action.
//
// # Voice controls
//
// Push-to-talk is the backquote key held in the window (ignored in text
// fields and in a live view the person drives, key repeat ignored): Unmute
// on press, Mute on release. Muting one agent (SetAgentMuted) is room
// state, not voice state: Room.Speak never calls Voice.Say for it. A
// transcript that arrives while a card waits goes through voiceAnswer: the
// whole utterance, less filler, must be a confirmation phrase or clearly
// name one option; otherwise it is a correction.
//
// # Files, by concern
//
//   - main.go: Main, the dispatch. desktop.go: RunDesktop, the Wails
//     window. display.go: the display check. bindings_on.go and
//     bindings_off.go: whether the binary is the one wails generate module
//     builds (which needs no display).
//   - app.go: App and its settings and key bindings (State, SaveSettings,
//     SetAPIKey, ForgetAPIKey, UseLocalServer). check.go: Doctor, Settings'
//     Check, over the session's data directory. history.go: History and
//     Replay.
//   - session.go: the session's lifecycle and the browser's relaunch.
//     remotebrowsers.go: the desktop's remote pool and findTab.
//   - runcontrol.go: StartRun, StopRun (the kill switch), Correct, HandTab,
//     Run. omnibox.go: Submit, a URL or a task.
//   - tabbindings.go: the window's tabs (the coalesced tabs:changed),
//     LiveEndpoint, PointerInput and KeyInput. live.go: the frame stream.
//     takeover.go: TakeOver, HandBack, FitView. personview.go:
//     PersonView, EventPerson, ChoosePicker, DismissPicker. clipboard.go:
//     the desktop's clipboard, Paste, Copy, CopyText, InsertText.
//     contextmenu.go: OpenInNewTab, MenuNav.
//   - cards.go: the confirmations and questions waiting for the person.
//     voicecards.go: a spoken answer to a card. voicecontrols.go: Unmute,
//     Mute, SetAgentMuted and the mic meter.
//   - pageasks.go: followAsks, PageAsks, AnswerDialog, AnswerAuth.
//     permissions.go: AnswerPermission, ForgetPermission, the grants of
//     "this time".
//     personbrowser.go: the person's browser options. filechooser.go:
//     the file dialog for a page's file input. downloads.go: the tray
//     (Downloads, OpenDownload, ShowDownload). droppedfiles.go: files
//     dropped on the omnibox. tabsound.go: SetAgentTabSound, a tile's
//     page sound.
//   - events.go: Event, every event and view type the UI receives, and the
//     kinds they carry (RunStatus, StopReason, CardKind, SubmitKind,
//     ConfirmAnswer). errors.go: the bindings' sentinels. deadlines.go:
//     the bindings' deadlines.
package app
