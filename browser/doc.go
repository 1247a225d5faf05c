// Package browser owns Chromium: finding and launching it (or connecting to a
// remote CDP endpoint), its tabs and their leases, page observation, verified
// trusted input, screenshots and screencast frames.
//
// It imports nothing else from Vroom, so it is usable on its own (`vroom
// observe`, in package app/cli, is a thin command line over Observe and
// Screenshot). Every blocking call takes a context
// first; cancelling a lease's context releases the tab, cancelling the
// browser's closes Chromium.
//
// `Launch` finds Chromium (`VROOM_CHROME`, then Debian's
// `/usr/lib/chromium/chromium` and the usual install paths, then the PATH:
// `FindChrome`, the one search list tests use too); `Start` is `Launch` in the
// background, and `Open` waits for it. `Connect` dials a `ws://` CDP endpoint;
// `ResolveEndpoint` turns an `http(s)` address into one through
// `/json/version`, and `EndpointName` hides credentials in every message;
// `Browser.Version` says which browser answered. Every blocking call takes a
// context; crashes, hangs, closed tabs and a dead browser become typed errors
// within the caller's deadline. Errors nobody waits for (a popup not adopted,
// a screencast that would not stop) go to `Options.Logf`; `Close` returns what
// disconnecting met, the same answer to every caller.
//
// # Leases
//
// A tab is leased to an owner (`Tab.Lease`, `WithOwner`) for a whole
// read-think-act sequence; anyone else gets `ErrTabLeased` naming the holder.
// A popup belongs to whoever holds its opener. A link opened in a new tab
// (a middle or Ctrl click) has no opener: it becomes an unleased tab like
// any other (`background.go`).
//
// # Seeing a page
//
// `Observe` returns a ranked frontier of at most 40 controls with short refs
// (the open dialog's first, then the viewport's), through shadow DOM and every
// frame, cross-process iframes included, masking password/card/OTP values. The
// walker (`js/`, joined into one script by `walker.go`) runs in an isolated
// world, keeps refs in a WeakMap (observing never mutates the page), and refs
// survive a framework re-rendering an element. `ObserveOptions.Query` searches every candidate on
// the page for a control whose name, value or nearby text matches; `Within`
// observes one subtree (`Observation.DialogRef`). Geometry is cached from an
// IntersectionObserver; a ResizeObserver marks an entry stale when its size
// changes without crossing the viewport (a list shown from display:none
// with most options clipped by its own scroll box), and a measured control
// is in view only where every scroll box it sits in shows it. A query's
// passage with no control in it, drawn with the pointer cursor, is its own
// control (`generic`). `Changes` diffs against one
// of up to eight baselines per document: controls added, changed and removed,
// and the prose that appeared or went away.
//
// # Acting
//
// An action checks its target (attached, visible, enabled, not inert, scrolled
// into view, hit-tested, again after the pointer moves), sends trusted CDP
// input, settles on events (never a fixed sleep), and reports whether anything
// changed. A click into an out-of-process frame waits until the page is drawn
// and must land on its target: the compositor's hit-test data lags a layout
// shift of the parent, so a press that missed is aimed again from fresh
// geometry. Typing focuses and selects the field in the same call (no press: a
// page can keep focus from a press) and inserts the text as trusted input.
// Verdicts fingerprint every form control's value, so a stepper setting
// `input.value` is an effect; "no visible effect" means nothing changed.
//
// # What a page asks of the browser
//
// A JavaScript dialog, a file chooser, a download, a password (HTTP auth)
// and a new window are each an Event on Browser.Subscribe, a field of the
// Result of the action that raised them, and an answer for whoever holds
// the tab: AnswerDialog (ActDialog), an upload without a ref, SetDownloads
// and WaitDownload, AnswerAuth (ActAuth), the popup leased to the opener's
// holder. A dialog held for the holder, or a password the navigation waits
// for, blocks the page: calls on it fail at once with a *DialogError or an
// *AuthError instead of hanging, and the action that raised it returns at
// once. Permissions are set per origin ahead of a page's request
// (SetPermission): the protocol has no event for one, so a browser with
// Options.AskPermissions holds the request in the page (a script and a
// binding) for the holder, as the PermissionAsked event, until
// AnswerPermission; leased tabs are never held. A frame's request, in its
// process or the page's, is asked for the top page's origin, as Chrome
// delegates it.
//
// Sound: Chromium mutes a whole browser (Options.Flags' mute-audio, on by
// default) or nothing; SetMuted silences one tab of a browser launched
// with sound, by a script in its documents (media elements muted, Web
// Audio suspended).
//
// # A person's tab
//
// `Tab.ServePerson` arms a tab a person drives from a live view:
// `personview.js` runs in an isolated world of every frame (the page
// cannot see it), prevents the popups headless Chromium would open unseen
// (a native select's list, the date, time, colour and datalist pickers:
// from a click, or Space, Alt+Down, F4) and reports through a binding what
// the view must draw instead (`Picker`: the element's box in the top
// viewport, its options or value and bounds), the cursor the page asks for
// under the pointer (its computed cursor; for auto a text beam over text
// and fields), the context menu a right-click asks for unless the page
// prevents it, and the text a copy or cut took. `Choose` sets the value
// as a person's choice does, then input and change; `PasteText` gives the
// focused element a paste event with the desktop's text and inserts it;
// `InsertText` types an input method's text whole. Scrollbars are hidden
// per tab by emulation (headless mode's flag would hide them for good)
// and shown while a person's view serves the tab. A cross-site iframe in
// a process of its own gets `personview.js` through its own session
// (`personframes.go`); its script cannot see where the frame sits, so it
// reports boxes in the frame's viewport and the browser adds the frame's
// iframe box in the top page (DOM.getFrameOwner, DOM.getBoxModel).
//
// Frames at a device pixel ratio: headless Chromium's screencast captures
// a tab's surface, drawn at the browser's device scale factor whatever
// the tab emulates, so a tab laid out at ratio 2 streams frames of half
// its device pixels unless the browser was launched with
// `Options.SurfaceScale` 2 (BENCHMARKS.md, BenchmarkClickToPaint).
//
// # The page's words
//
// One reader (js/read.js) reads a document as a person does: a line per
// heading (#), paragraph, list item (-, 1.) and table row (cells between
// |), the words of links in place, shadow DOM through its slots, hidden
// text left out, and an iframe as a marker line that pagetext.go replaces
// with that frame's own reading (out-of-process frames through their own
// sessions). The observation's text starts at the top of the view, goes on
// below while its 600 characters last, drops lines that only name controls
// unless they are a row's title, and counts the characters above and below.
// Tab.ReadText is the whole text (at most 200,000 characters), which the
// agents' read_page pages. A query also finds passages of the text (the
// sentence; a short row or card whole; a heading with what follows it),
// each with the refs of the controls near it.
//
// # Settle on the action's own network
//
// `netwatch.js` runs once in each document's main world and, while an action's
// window is open (from the baseline to the settle), counts the requests and
// the timers of ≤ 1.5 s the page schedules, and what those start in turn — a
// fetch until the body the page reads has come (a read whole, `text()` or
// `json()`, until it ends; a stream, until the response's resource timing
// entry says it is whole), since the headers can come long before it; what
// is answered later as a request is (an IndexedDB or Cache Storage
// read or write, a blob or FileReader read, a `crypto.subtle` operation),
// until it has its answer; at
// most 12 timers, nothing from a loop older than the window (a chain the last
// action started counts only in that action's window), so an animated page
// costs an action nothing. Code the page's script loads where no wrapper
// sees it — a module it `import()`s, a script or stylesheet it adds — is
// heard on the tab's session (`loads.go`), and the action settles again
// once it has come, in a window that counts what that code then starts;
// an image the script loads is not waited for, but an action whose only
// doing it is says it is still loading. Messages posted on a MessageChannel, idle
// callbacks and scheduled tasks count like timers until they have run. A
// click, key, choice or typing (without Enter) in the top frame that
// started nothing of the kind — nor a frame callback, a message to a
// window, worker or socket, a window, a submit or a page leave, and is not
// a link's or a submit button's — resolves when Chromium acknowledges the
// input, its handlers run (`BenchmarkClick` 33 → 17 ms); a native select's
// choice, made in the page, is settled and looked at in the call that
// makes it, once the microtasks its handlers queued have run: chains up
// to 48 links long, as a framework's render or an async handler's awaits
// are (a request started after a longer chain is not waited for). Every tab runs
// with the overlay agent on, which makes Blink dispatch mouse moves and
// wheel turns at once rather than at the next animation frame: the move
// a click makes to its target before checking what covers it then costs
// under a millisecond instead of up to a frame (`BenchmarkClick` 17 → 8
// ms); any other action that started nothing
// resolves once the DOM is quiet; otherwise the settle waits, event-driven, for the window's
// requests and timers (at most 2 s), then for the DOM again. A request still
// in flight at the bound is `Result.Pending` ("still loading"). A scroll (or
// a key that scrolls) first waits for the scroll to end, heard by the
// walker's scroll events (two frames after a smooth scroll's last; 100 ms
// with none when it had nowhere to go, outside a text field); one that
// moved nothing and changed nothing also waits for the
// page's requests begun in the last 5 s (a feed loading its next page
// because an earlier scroll brought its end near). `BenchmarkScroll` (load
// ≈ 30): 62–80 ms a scroll where nothing loads (42 before, which returned
// before a smooth scroll had ended), 504–518 ms an End that loads the next
// page of a feed from a server answering in 300 ms (before: "no visible
// effect", the page not yet moved and the posts not yet there). Measured: a
// typeahead (150 ms debounce + 300 ms server) returns in ~530 ms with its
// listbox in the DOM; "Processing…" then a POST 800 ms later in ~980 ms with
// the confirmation shown; clicks on a page with an interval, a recursive
// timeout and a poll take 30–55 ms.
//
// # Wait
//
// `Tab.Wait` waits in the page, woken by mutations and netwatch's events,
// until every condition of its `WaitFor` holds (text, text gone, URL, a
// control matching as `Query` does) or, with none, until the page is idle. The
// timeout defaults to 10 s, at most 30 s; a timeout is `WaitResult{Met:
// false}` saying what did not happen, not an error. A navigation continues the
// wait in the new document, and the tab answers other calls meanwhile.
//
// # The request guard
//
// `Tab.Guard` holds every request of the tab (CDP Fetch at the request
// stage: navigations, form POSTs with their bodies, each redirect hop, and
// what its pages fetch, beacon, stream or load) until a check answers, each
// in its own goroutine so a check waiting for the person holds only its
// request. It covers what the tab opens: its out-of-process frames, held
// from their start on sessions of the tab's, and the windows its pages open,
// whose first navigation, and what their first document sends until their
// tab is set up, the browser's own Fetch holds for the opener's guard,
// which their tab then carries (`targets.go`). Its documents and dedicated
// workers get a wrapper before their scripts: sockets only to their origin
// and the holder's hosts, no service worker, no shared worker, no WebRTC
// (`sockets.go`, `workers.go`); what it refuses is told to the check as a
// `Request` with `Refused` set, so the holder reports it as any refusal
// (`refusals.go`). A refused request is answered `204 No Content`: the
// navigation ends with the page as it was, and no error page for the agent to
// read. `Tab.Secrets` returns the given hosts' cookies and the masked fields'
// values, which the exfiltration guard looks for. A launched profile
// predicts nothing (`prediction.go`): no preconnect, DNS prefetch or
// speculative load opens a connection the Fetch domain cannot see. A
// guarded tab of a launched browser without windows refuses Chromium's own
// download of a page's icon: nobody sees its tab strip, the desktop loads
// the icon from `TabInfo.Favicon` itself, and the download would otherwise
// be held for the guard beside the new page's first input (`icons.go`).
//
// # Opening a tab
//
// `Open` gives each tab a window of its own: a tab behind another in its
// window is drawn only when the front one draws, and a page that opens a
// tab (window.open, a link with a target) puts it in front of its own
// window, so a still page there left the tabs behind it without frames
// (about one a second) — their scrolls, drags and waits for a frame
// stalled (`TestOpenedTabsKeepDrawing`, runner's
// `TestAgentTabsDrawWhenAPageOpensATab`). Chromium's backgrounding switches
// (chromedp's defaults: `disable-renderer-backgrounding`,
// `disable-backgrounding-occluded-windows`,
// `disable-background-timer-throttling`) do not help: such a tab is
// neither hidden (its page reads visible and focused) nor throttled (its
// timers run on time); its window just draws nothing new. A tab a page
// opens stays where Chromium puts it, in front of its opener, whose agent
// works in it until it closes. A live view's screencast draws the tab it
// watches whatever its window.
//
// A window costs more than a tab, so a launched headless browser keeps
// one blank window created ahead, attached but not listed (`spare.go`);
// `Open` lists it and `Tab.Load`s the URL (`Page.navigate` and the load
// event; no checked action, since there was nothing on the page), and the
// next window is created once that page has loaded. `BenchmarkOpenTab` (a
// local page until its load; medians of two runs at load ≈ 20; at load
// ≈ 5, `Open` 65.8–69.4 against the old `Open`'s 127.6–183.7, back to back
// 195.1–214.0, a new window 201.6–231.8, prewarmed 70.7–89.8):
//
//   - new window, about:blank, `Navigate` action: 316.6, 310.6
//   - new window, URL in `createTarget`: 239.2, 254.9
//   - new window, about:blank, `Page.navigate` + load: 300.6, 274.7
//   - the window created ahead, `Page.navigate` + load (`Open`): 86.3, 92.4;
//     back to back, the next window not yet made: 295.8, 272.6
//   - tab in an existing window, about:blank, `Navigate` action: 197.4, 236.7
//   - tab in an existing window, about:blank, `Page.navigate` + load (the
//     old `Open`): 220.0, 209.1
//   - tab in an existing window, URL in `createTarget`: 217.0, 192.9
//   - prewarmed blank tab, `Tab.Load` only (`runner.Tabs.Open` with the
//     pool): 195.9, 138.8
//
// The URL in `createTarget` saves ~10 ms more, but the page then loads (and
// creates its cross-site iframes) before the tab is attached and emulated:
// `TestIframes` failed with it.
//
// # Hidden text is not the page
//
// An injection is most dangerous where the person cannot see it: the agent
// would act on text they never had a chance to judge. The walker (`hiddenHow`,
// `seenText`) leaves such text out of everything the model reads — control
// names, headings, the text excerpt, and so the diffs' prose and `read_page`.
// Per kind:
//
//   - not rendered: `display`/`visibility`/`opacity: 0`, a closed `<details>`:
//     dropped — nothing is on screen; a closed details shows its summary (a
//     control), and opening it makes its text appear in the diff
//   - its background's colour (contrast under 1.3:1), transparent text:
//     dropped — no honest page writes text to be unread; over a background
//     image the colour cannot be judged and the text counts as seen
//   - zero size (font-size under 2px), clipped by an ancestor at most 2px wide
//     or high, `clip`/`clip-path` visually hidden: dropped from page text and
//     from a name that has visible text — screen-reader text adds nothing a
//     sighted person reads, and it is where the first injection hid (a span in
//     a link's name)
//   - visually-hidden text naming a control with no visible text (an icon
//     button): kept as the name; a sentence of more than four words is marked
//     `[hidden]` and cut to 40 characters — it is the icon's only name
//     ("Search", "Close"); a sentence there is not a label, and the mark says
//     nobody sees it
//   - off the page (wholly left of or above the document's origin): dropped —
//     no scrolling reaches it
//   - `aria-hidden="true"` content: dropped from names; kept in page text —
//     the accessible name leaves it out too; but a sighted person sees it, and
//     the model should read what the person reads
//   - an `aria-label`/`aria-labelledby` that does not contain the control's
//     visible text (of three letters or more): the visible text is the name —
//     the label a person reads is the one they would click by; a short glyph
//     ("×") keeps its label
//   - HTML comments: never read — they are not text nodes
//
// Text that stays is still fenced as untrusted page data.
// `TestHiddenTextIsNotThePage` covers each kind,
// `TestVisibleTextIsNeverDropped` a page of visible text in many styles.
//
// Files, by concern:
//
//   - `launch.go`: `Options`, `FindChrome`, the chromedp allocator.
//     `remote.go`: `CheckEndpoint`, `ResolveEndpoint`, `ConnectEndpoint`,
//     `EndpointName`, `Browser.Version`.
//   - `browser.go`: `Browser` — `Launch`, `Start`, `Connect`, death,
//     `Relaunch`, `Close`, adopting tabs and popups, `Open`. `spare.go`:
//     why each tab `Open` makes has a window of its own, and the window
//     created ahead of the next `Open`. `tabs.go`:
//     `TabInfo`, tab events and their coalescing subscriber, the listing,
//     `Tab.Load`.
//   - `tab.go`: `Tab` — attach, CDP events, frames (out-of-process iframes
//     included), the isolated world, the per-call context (`begin`) and error
//     mapping (`fail`). `lease.go`: owners and leases.
//   - `observe.go` (with the walker, `walker.go` and `js/`): `Observe`, the merged frontier,
//     `Compact`. `diff.go`: `Changes`, `Diff`, the baselines. `wait.go`:
//     `Wait`. `net.go` (with `netwatch.js`): the main-world request and timer
//     counter.
//   - `action.go`: `Action`, `Condition`, `Result`, validation. `act.go`:
//     `Do`, the convenience methods, and `Tab.act`, the dispatcher (target,
//     baseline, input, settle, verdict). `pointer.go`: locating a ref, the
//     pointer checks, clicks (into frames too), hover, `click_at`, scroll.
//     `keys.go`: chords, key events, typing. `select.go`: native and custom
//     selects, uploads. `nav.go`: navigate, back/forward, reload. `settle.go`:
//     the event-driven settle; when the page asked for a navigation of its top
//     frame, the action waits for its fate (frameNavigated or
//     frameStoppedLoading), as long as the tab's guard holds a request and
//     `SettleTimeout` beyond. `verdict.go`: the fingerprints and what changed.
//     `batch.go`: `Batch`.
//   - `screenshot.go` (one pixel per CSS pixel, so `click_at` coordinates
//     match; set-of-marks), `screencast.go` (one CDP screencast per tab fanned
//     out with a one-frame buffer; its start/stop sequences are serialised,
//     since two at once — a view resized while the viewport is fitted — make
//     Chromium refuse the second start), `forward.go` (the person's pointer
//     and keys as trusted input; `FitViewport`, which restarts a running
//     screencast: over a still page Chromium sends no frame for a size change
//     alone). `viewport.go`: `ShowAt`, the person's tab laid out at its view's
//     size and pixel ratio (page zoom is the same call). `history.go`: the
//     person's back, forward, reload and stop, sent as they are, not as checked
//     actions. `findinpage.go` (with `findinpage.js`): find in page, its
//     matches highlighted with the CSS Custom Highlight API.
//     `personview.go` (with `personview.js`): `ServePerson`, its
//     events, `Choose`; `personframes.go`: the same in out-of-process
//     frames; `clipboard.go`: `PasteText`, `SelectedText`,
//     `InsertText`.
//   - `pointer.go`: a click into an out-of-process frame waits until the page
//     is drawn and must land on its target — the compositor's hit-test data
//     lags a layout shift of the parent, and a press sent before it catches up
//     lands where the frame used to be.
//   - `layer.go`: a look within a layer also walks the iframes inside it (a
//     consent manager's dialog is another site's page in an iframe).
//     `waitframes.go`: a wait for a control also waits in the child frames,
//     looking again as frames arrive. An iframe over the viewport is a modal
//     like any backdrop; a click that closes its own frame, or an iframe
//     loading another page, is an effect settled in the top frame — only the
//     top frame's navigation is the page's.
//   - `framed.go`: an action inside an iframe also takes the top frame's state
//     before and settles it after (its network window too): the effect of a
//     click in a frame is often the page's (a message posted up, the page
//     reacting), and the result's URL is the page's.
//   - `guard.go`: `Tab.Guard` (every request; those not documents marked
//     `Request.Script`), `Tab.Secrets`. `intercept.go`: the tab's Fetch
//     set-up on each of its sessions. `targets.go`: windows and
//     out-of-process frames held from their first request. `sockets.go`,
//     `sockets.js`: the wrapper of a guarded tab's documents; `workers.go`:
//     its dedicated workers held and wrapped; `refusals.go`: what the
//     wrapper refused, told to the guard. `prediction.go`: the profile's
//     "never predict". `errors.go`: every sentinel and error type.
//
// # Failures
//
// A renderer crash, a tab closed elsewhere, a hung page or a dead browser
// fail pending and later calls with ErrTabCrashed, ErrTabClosed,
// ErrUnresponsive or a context deadline, and ErrBrowserClosed; Relaunch
// starts a new browser.
package browser
