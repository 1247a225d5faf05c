// After an action: the page's fingerprint for the verdict, the wait for
// the DOM (and the requests the action started) to settle, and the waits
// for text, a control, a URL or quiet.

// formState digests every form control's state (value, checked,
// selection) in the document and its same-origin frames: a script that
// sets input.value = 2 changes no attribute, so no mutation shows it.
// A digest, not the values: a password stays in the page. With masked,
// the values of the masked fields met are pushed onto it.
function formState(masked) {
  let h = 2166136261, n = 0;
  const mix = (s) => {
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    h ^= 0x1f; h = Math.imul(h, 16777619);
  };
  for (const d of sameOriginDocs()) {
    for (const el of d.querySelectorAll('input,select,textarea')) {
      n++;
      if (el.tagName === 'SELECT') {
        if (el.multiple) for (const o of el.selectedOptions) mix(String(o.index));
        else mix(String(el.selectedIndex));
      } else if (el.type === 'checkbox' || el.type === 'radio') mix(el.checked ? '1' : el.indeterminate ? 'm' : '0');
      else {
        mix(el.value);
        if (masked && el.value && maskedField(el)) masked.push(el.value);
      }
    }
  }
  return n + ':' + (h >>> 0).toString(36);
}

// sameOriginDocs are the document and those of its iframes this world
// can reach (a cross-origin frame's own world sees its own).
function sameOriginDocs() {
  const docs = [document];
  for (const f of document.getElementsByTagName('iframe')) {
    try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) { /* cross-origin */ }
  }
  return docs;
}

// maskedField says whether an input holds what observations mask and no
// request may carry elsewhere: a password, a card's number, code or
// expiry, a one-time code. Read from this world, where the page's own
// script cannot redefine what a field's value or type reads as.
function maskedField(el) {
  if (el.tagName !== 'INPUT') return false;
  const t = (el.getAttribute('type') || '').toLowerCase();
  return t === 'password' || /(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)/i.test(el.getAttribute('autocomplete') || '');
}

// maskedValues are the values of the masked fields of the document and
// its same-origin frames.
function maskedValues() {
  const out = [];
  formState(out);
  return out;
}

// fingerprint is the page's state for the verdict; with open, it also
// opens the action's network window (netwatch.js), right before the input,
// and holds the masked fields' values then, for the guard of the requests
// the input may cause.
function fingerprint(ref, open) {
  const a = deepActive();
  const masked = open ? [] : null;
  const f = { url: location.href, muts: S.muts, downs: S.downs, scroll: scrollX + ',' + scrollY, scrolls: S.scrolls, focus: a ? (S.refs.get(a) || a.tagName + (a.id ? '#' + a.id : '')) : '', form: formState(masked) };
  if (masked) f.masked = masked;
  if (open) net('open');
  if (ref) {
    const el = resolve(ref);
    if (el) {
      f.value = 'value' in el ? String(el.value) : '';
      f.checked = 'checked' in el ? String(el.checked) : (el.getAttribute('aria-checked') || '');
      f.expanded = el.getAttribute('aria-expanded') || '';
    }
  }
  return f;
}

// settle resolves once the DOM has been quiet for quietMs after the
// action, or at maxMs; the host enforces its own deadline on top, since a
// hung renderer runs no timers at all. With mutsBefore (typing), it
// settles at once if the DOM has not changed at all since before the
// input: the verdict rests on the field's value, final at once, and a
// quiet window would only wait for reactions that never started.
//
// With netMs (an action's own settle, no condition), once the DOM is
// quiet it asks the main world whether the action started requests or
// short timers (a debounce, a "Processing…" delay before a POST); if so
// it waits for them, event-driven and for at most netMs from the start,
// then for the DOM again. Asking is a synchronous event round trip in
// the page, so an action that started nothing pays nothing for it.
//
// With fast (a click, a key, a choice or typing in the top frame), an action that
// started nothing netwatch cannot follow — no request, timer, frame
// callback, message, window or navigation — and is not a link's or a
// form's is settled at once: Chromium acknowledges an input after its
// handlers, their microtasks and the DOM's records have run, so nothing
// is left that could still change the page. Anything else waits as above.
//
// With sc (a scroll, or a key that scrolls: the counts of scroll events
// and mutations in its fingerprint from before the input, and whether it
// was a key, which does not scroll in a text field), it first waits for
// the scroll to end: for its animation's last scroll event, or, with
// none, for SCROLL_IDLE_MS (nowhere to go). A scroll that moved
// nothing then also waits for the page's young requests (netwatch.js),
// begun before the action: a feed whose end an earlier scroll brought
// near is loading what comes next, and the answer is what it loaded.
function settle(quietMs, maxMs, cond, ref, mutsBefore, netMs, sc, fast) {
  const start = performance.now();
  const netOn = netMs > 0 && !cond;
  const scrolling = !!sc && !(sc.key && isEditable(deepActive() || document.body));
  const scrolls0 = sc ? sc.scrolls : 0;
  // Nothing moved and nothing changed (a key the page handled, moving a
  // list's selection, is its own effect, not a wait for the network).
  const stuck = () => scrolling && S.scrolls === scrolls0 && S.muts === sc.muts;
  const own = (n) => n.reqs + n.timers + (stuck() ? n.young || 0 : 0);
  return new Promise((res0) => {
    let from = start; // quiet counts from here: the start, or the network's end
    let pending = 0;  // requests in flight when a bound was hit
    let wake = null;
    const res = (v) => {
      if (wake) S.onNet.delete(wake);
      if (netMs > 0) net('close');
      v.fp = fingerprint(ref);
      if (pending) v.pending = pending;
      if (scrolling && S.scrolls !== scrolls0) v.scrolled = true;
      res0(v);
    };
    // waitNet is false when there is nothing (more) to wait for; else
    // it has arranged for tick to run once the network is done.
    const waitNet = (now) => {
      if (!netOn) return false;
      const n = netState();
      if (!own(n)) return false;
      if (now - start >= netMs) { pending = n.reqs + (stuck() ? n.young || 0 : 0); return false; }
      let bound = 0;
      const resume = () => {
        S.onNet.delete(wake); wake = null; clearTimeout(bound);
        from = performance.now();
        requestAnimationFrame(tick);
      };
      wake = () => { if (!own(netState())) resume(); };
      S.onNet.add(wake);
      bound = setTimeout(resume, netMs - (now - start));
      return true;
    };
    const tick = () => {
      const now = performance.now();
      if (cond && check(cond)) return res({ settled: true, cond: true });
      if (now - start >= maxMs) {
        if (netOn) pending = netState().reqs;
        return res({ settled: false, cond: cond ? check(cond) : undefined });
      }
      // After a response, a little longer: its body is parsed and
      // rendered in tasks of their own.
      const q = from > start ? Math.max(quietMs, 50) : quietMs;
      if (!cond && now - Math.max(S.lastMut, from) >= q) {
        if (!waitNet(now)) return res({ settled: true });
        return;
      }
      setTimeout(tick, 4);
    };
    // One frame lets rAF-driven renders land before quiet is judged;
    // typing looks first at once (its handlers ran during the input)
    // and waits for the frame only if the DOM moved.
    if (scrolling) {
      scrollEnd(start, scrolls0, sc.dir || '', maxMs, tick);
    } else if (fast && netOn && settledAtOnce(ref)) {
      return res({ settled: true });
    } else if (fast && netOn && mutsBefore == null) {
      requestAnimationFrame(tick);
    } else if (mutsBefore != null && !cond) {
      setTimeout(() => {
        if (S.muts === mutsBefore && !waitNet(performance.now())) return res({ settled: true });
        if (!wake) requestAnimationFrame(tick);
      }, 0);
    } else {
      requestAnimationFrame(tick);
    }
  });
}

// settleAgain settles once more after an action whose page's script began
// loading code netwatch cannot follow (a module it imported, a script or
// stylesheet it added; the host heard of them): in a window opened anew,
// which counts the loads of urls still on their way until their
// responses are whole, and what their code starts once it runs. fn is
// settle or settleLook, with its arguments.
function settleAgain(urls, fn, ...args) {
  net('open', 'again');
  if (urls.length) net('loads', JSON.stringify(urls));
  return fn === 'settleLook' ? settleLook(...args) : settle(...args);
}

// settledAtOnce reports whether the input just acknowledged left nothing
// the page still owes: no request, timer or other deferred work netwatch
// follows, and not a link's or a form's activation.
function settledAtOnce(ref) {
  const n = netState();
  return n.open && !n.reqs && !n.timers && !n.busy && !leads(ref);
}

// leads reports whether the element of ref (or, for a key, the focused
// one) is a link or submits a form:
// what follows its click is the browser's doing (a navigation, a new
// window, a download), which the page's events report only later.
function leads(ref) {
  const el = ref ? resolve(ref) : deepActive();
  if (!el || !el.closest) return false;
  if (el.closest('a[href],area[href]')) return true;
  const f = el.form || el.closest('form');
  if (!f) return false;
  const t = (el.getAttribute('type') || (el.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase();
  return t === 'submit' || t === 'image';
}

// A scroll that moved has ended when SCROLL_QUIET_MS and SCROLL_FRAMES
// frames pass with no scroll event after its last (a smooth scroll sends
// one a frame, but on a busy machine frames come late, and a frame can
// come without one). One that has not moved after SCROLL_IDLE_MS (and a
// frame) had nowhere to go; when the page itself has room to go the way
// the scroll goes, its first event is awaited for SCROLL_ROOM_MS and
// SCROLL_ROOM_FRAMES frames: a box inside it may be what scrolls, or
// nothing, but a busy renderer is the likelier reason. A key's scroll
// starts on the compositor after a hop through the browser, so on a
// starved machine (a frame a second) no span of time is enough, but a
// few frames drawn without it are.
const SCROLL_FRAMES = 2;
const SCROLL_QUIET_MS = 40;
// A tab drawn a frame a second (a background tab, at times) has ended
// its scroll when SCROLL_STILL_MS pass without an event, frames or not.
const SCROLL_STILL_MS = 300;
const SCROLL_IDLE_MS = 100;
const SCROLL_ROOM_MS = 600;
const SCROLL_ROOM_FRAMES = 4;

// scrollEnd calls then once the scroll begun at start (scrolls0 scroll
// events before it, going dir: 'down', 'up' or '' when not known) has
// ended, or at maxMs.
function scrollEnd(start, scrolls0, dir, maxMs, then) {
  const se = document.scrollingElement || document.documentElement;
  const room = dir === 'down' ? se.scrollHeight - (scrollY + innerHeight) > 1 : dir === 'up' ? scrollY > 0 : false;
  const idle = room ? SCROLL_ROOM_MS : SCROLL_IDLE_MS;
  const idleFrames = room ? SCROLL_ROOM_FRAMES : 1;
  // frames counts the frames drawn since the last scroll event: a smooth
  // scroll's next step may come late on a busy machine, but not after
  // two frames without one.
  let frames = 0, seen = S.scrolls, alive = true;
  const frame = () => {
    if (S.scrolls !== seen) { seen = S.scrolls; frames = 0; } else frames++;
    if (alive) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const poll = () => {
    const now = performance.now();
    const moved = S.scrolls !== scrolls0;
    const since = now - Math.max(S.lastScroll, start);
    const quiet = moved ? since >= SCROLL_QUIET_MS && (frames >= SCROLL_FRAMES || since >= SCROLL_STILL_MS) : frames >= idleFrames && now - start >= idle;
    if (quiet || now - start >= maxMs) { alive = false; return then(); }
    setTimeout(poll, 8);
  };
  poll();
}

// waitFor resolves when every condition of c holds, or at maxMs: text
// (the visible text contains it), gone (it no longer does), url (the
// URL contains it), query (a visible control matches it, as observe's
// query), idle (no request in flight, the document loaded, the DOM quiet
// for 500 ms). Text and URL compare case-insensitively, whitespace
// squashed. It re-checks when the DOM or the network changes, at most
// every 50 ms, and every 500 ms regardless (a URL set by pushState, a
// style that shows text), never busier.
function waitFor(c, maxMs) {
  const start = performance.now();
  const low = (x) => squash(x).toLowerCase();
  return new Promise((resolve) => {
    let timer = 0, at = Infinity, last = -Infinity;
    const evaluate = () => {
      const now = performance.now();
      const parts = {};
      let text = null;
      const page = () => (text !== null ? text : (text = low(document.body ? document.body.innerText : '')));
      if (c.text) parts.text = page().includes(low(c.text));
      if (c.gone) parts.gone = !page().includes(low(c.gone));
      if (c.url) parts.url = location.href.toLowerCase().includes(c.url.toLowerCase());
      let found = null;
      if (c.query) { found = queryFind(c.query); parts.query = found !== null; }
      const n = netState();
      let next = 500;
      if (c.idle) {
        const quiet = now - Math.max(S.lastMut, S.installed);
        parts.idle = n.inflight === 0 && document.readyState === 'complete' && quiet >= 500;
        if (!parts.idle && n.inflight === 0) next = Math.max(1, 500 - quiet);
      }
      const met = Object.values(parts).every(Boolean);
      return { met, parts, found, pending: n.inflight, next };
    };
    const arm = (delay) => {
      const when = performance.now() + delay;
      if (timer && at <= when) return;
      clearTimeout(timer);
      at = when;
      timer = setTimeout(run, delay);
    };
    const poke = () => arm(Math.max(0, last + 50 - performance.now()));
    const finish = (r) => {
      clearTimeout(timer);
      S.onMut.delete(poke);
      S.onNet.delete(poke);
      document.removeEventListener('readystatechange', poke);
      net('watch', false);
      delete r.next;
      resolve(r);
    };
    function run() {
      timer = 0; at = Infinity;
      last = performance.now();
      const r = evaluate();
      const left = maxMs - (last - start);
      if (r.met || left <= 0) return finish(r);
      arm(Math.min(r.next, left));
    }
    S.onMut.add(poke);
    S.onNet.add(poke);
    document.addEventListener('readystatechange', poke);
    net('watch', true);
    run();
  });
}

function check(c) {
  if (c.text) {
    const t = document.body ? document.body.innerText : '';
    if (!t.includes(c.text)) return false;
  }
  if (c.url && !location.href.includes(c.url)) return false;
  if (c.ref) {
    const el = resolve(c.ref);
    if (!el) return c.gone === true;
    if (c.gone) return false;
    if (c.value !== undefined && String(el.value) !== c.value) return false;
    if (c.checked !== undefined && String(el.checked) !== String(c.checked)) return false;
  }
  return true;
}
