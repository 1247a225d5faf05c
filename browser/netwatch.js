// The main-world half of the settle: it counts the requests (fetch, XHR)
// in flight and the short timers a page schedules while an action's
// tracking window is open, so the action can wait for its own network
// (a debounce, then a fetch, then a render) and no longer.
//
// It must run in the page's own world, since that is where the page's
// fetch and setTimeout live; the walker (isolated world) talks to it with
// DOM events on window, which cross worlds: nothing here is reachable as a
// property of the page's globals except a non-enumerable marker, so a page
// neither sees it in a for-in nor runs it twice.
(() => {
  if (Object.getOwnPropertyDescriptor(window, '__vroomNet')) return;
  Object.defineProperty(window, '__vroomNet', { value: true });

  // A timer longer than this is not a reaction to input (a poll, a
  // session timeout); more timers than MAX_TIMERS in one window is a loop.
  const MAX_TIMER_MS = 1500;
  const MAX_TIMERS = 12;
  // A window the host never closed (its call failed) stops counting.
  const MAX_WINDOW_MS = 15000;

  const add = EventTarget.prototype.addEventListener;
  const fire = EventTarget.prototype.dispatchEvent;
  const oST = window.setTimeout;
  const oCT = window.clearTimeout;
  const oCI = window.clearInterval;
  const oRAF = window.requestAnimationFrame;
  const oFetch = window.fetch;
  const xhr = window.XMLHttpRequest && XMLHttpRequest.prototype;
  const oSend = xhr && xhr.send;
  const now = () => performance.now();

  const st = {
    inflight: 0,   // every fetch/XHR in flight
    gen: 0,        // the current window's number
    open: false,
    until: 0,
    reqs: 0,       // requests the current window started, still in flight
    counted: 0,    // timers the current window has counted
    timers: new Map(), // id -> window number, for the window's pending timers
    watch: 0,      // listeners in the walker that want change events
    // busy counts what the window started that is not followed to its
    // end: a frame callback, a message to a window, a worker or a socket,
    // a window opened, a form submitted, the page being left. An action
    // that started any of it settles the slow way (a frame, then a quiet
    // DOM), one that started nothing at once.
    busy: 0,
    // since is when the current action's first window opened.
    since: 0,
  };
  // untracked > 0 while a callback runs that belongs to something older
  // than the window (an animation loop, a poll): what it schedules is not
  // the action's doing.
  let untracked = 0;

  // A request begun this recently may be the page still loading what the
  // last action asked for (the next page of a feed, fetched when a scroll
  // that had already returned brought its end near); an older one is a
  // poll or a long-lived stream, which no action waits for.
  const YOUNG_MS = 5000;
  const live = new Set(); // start times of the requests in flight
  const young = () => {
    let n = 0;
    const t = now();
    for (const r of live) if (t - r.at < YOUNG_MS) n++;
    return n;
  };
  const state = () => ({ inflight: st.inflight, young: young(), reqs: st.reqs, timers: st.timers.size, open: st.open, busy: st.busy });
  const mark = () => { if (tracking()) st.busy++; };
  const changed = () => {
    if (st.open || st.watch > 0) fire.call(window, new CustomEvent('__vroom_net_ch', { detail: state() }));
  };
  const tracking = () => st.open && untracked === 0 && now() < st.until;

  // begin counts a request of window mine (-1: of none the host follows);
  // the returned function ends it once.
  function begin(mine) {
    const r = { at: now() };
    st.inflight++;
    live.add(r);
    if (mine >= 0) st.reqs++;
    changed();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      st.inflight--;
      live.delete(r);
      if (mine >= 0 && mine === st.gen) st.reqs--;
      changed();
    };
  }

  // Wrappers read as native code, as the originals do, so a page that
  // checks its globals finds nothing new.
  function disguise(wrapper, orig) {
    Object.defineProperty(wrapper, 'toString', { value: () => Function.prototype.toString.call(orig) });
    return wrapper;
  }

  // wrapCallback runs a callback with the tracking state of where it was
  // scheduled: what a timer tracked in window gen starts is tracked in
  // turn, but only in that window (-1: never). A chain the last action
  // started that outlives its window (a 250 ms loop cut at the bound) is
  // older than the next action, not its doing.
  function wrapCallback(fn, gen, after) {
    return function () {
      const mine = gen >= 0 && gen === st.gen;
      if (!mine) untracked++;
      try {
        return fn.apply(this, arguments);
      } finally {
        if (!mine) untracked--;
        if (after) after();
      }
    };
  }

  // A fetch's promise settles with the headers; the body comes after
  // them, and on a slow, large or streamed response long after. A read of
  // the body that the page begins continues the request, in the window
  // the fetch was made in, until the body has arrived: the page renders
  // what it read only then. A read whole (text(), json()…) ends with its
  // promise; a read as a stream (body: a reader, a for-await, a pipe)
  // when the browser times the whole response, which it does at the
  // response's end (its resource timing entry). A body the page never
  // touches is not waited for.
  const unread = new WeakMap(); // Response -> its fetch's record (arrivals)
  const then = Promise.prototype.then;
  const ready = Promise.resolve();
  if (oFetch) {
    window.fetch = disguise(function fetch(input) {
      const mine = tracking() ? st.gen : -1;
      const done = begin(mine);
      const url = mine >= 0 ? requestURL(input) : '';
      let p;
      try {
        p = oFetch.apply(this, arguments);
      } catch (e) {
        done();
        throw e;
      }
      // The page's own reactions to the headers run right after this
      // one: the request ends a microtask later, once a read they begin
      // at once has been counted.
      then.call(p, (res) => {
        if (mine >= 0 && res) unread.set(res, arrivals.expect(mine, [url, res.url]));
        then.call(ready, done);
      }, done);
      return p;
    }, oFetch);
    watchBodies();
  }
  watchStores();
  if (oSend) {
    xhr.send = disguise(function send() {
      const done = begin(tracking() ? st.gen : -1);
      add.call(this, 'loadend', done, { once: true });
      try {
        return oSend.apply(this, arguments);
      } catch (e) {
        done();
        throw e;
      }
    }, oSend);
  }

  window.setTimeout = disguise(function setTimeout(fn, ms, ...args) {
    if (typeof fn !== 'function') return oST.apply(window, arguments);
    const track = tracking() && (+ms || 0) <= MAX_TIMER_MS && st.counted < MAX_TIMERS;
    const gen = st.gen;
    let id = 0;
    if (track) st.counted++;
    // Only a counted timer's callback is tracked: one past the cap or too
    // long, like one older than the window, starts nothing waited for.
    const cb = wrapCallback(function () { return fn.apply(this, args); }, track ? gen : -1, track ? () => {
      if (st.timers.get(id) === gen && st.timers.delete(id)) changed();
    } : null);
    id = oST.call(window, cb, ms);
    if (track) {
      st.timers.set(id, gen);
      changed();
    }
    return id;
  }, oST);

  // A cleared timer (a debounce restarted by the next keystroke) is no
  // longer pending.
  const unTimer = (id) => { if (st.timers.delete(id)) changed(); };
  window.clearTimeout = disguise(function clearTimeout(id) { unTimer(id); return oCT.call(window, id); }, oCT);
  window.clearInterval = disguise(function clearInterval(id) { unTimer(id); return oCI.call(window, id); }, oCI);

  // Intervals are never waited for, and what they start belongs to them.
  const oSI = window.setInterval;
  window.setInterval = disguise(function setInterval(fn, ms, ...args) {
    if (typeof fn !== 'function') return oSI.apply(window, arguments);
    return oSI.call(window, wrapCallback(function () { return fn.apply(this, args); }, -1), ms);
  }, oSI);

  // A frame callback is not waited for (the settle waits a frame anyway),
  // but it carries the tracking state of where it was requested, so a
  // render loop older than the window does not count as the action's.
  if (oRAF) {
    window.requestAnimationFrame = disguise(function requestAnimationFrame(fn) {
      if (typeof fn !== 'function') return oRAF.apply(window, arguments);
      mark();
      return oRAF.call(window, wrapCallback(fn, tracking() ? st.gen : -1));
    }, oRAF);
  }

  // A message to a window, a worker or a socket and a new window are
  // answered where netwatch cannot follow; leaving or submitting the page
  // ends it. Each sends the settle the slow way.
  const watchCall = (obj, name) => {
    const orig = obj && obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = disguise(function () { mark(); return orig.apply(this, arguments); }, orig);
  };
  watchMessages();
  watchCall(window, 'postMessage');
  watchCall(window.Worker && Worker.prototype, 'postMessage');
  watchCall(window.BroadcastChannel && BroadcastChannel.prototype, 'postMessage');
  watchCall(window.WebSocket && WebSocket.prototype, 'send');
  watchTasks();
  watchCall(window, 'open');
  // The Navigation API hears the page start a navigation of its own; a
  // beforeunload listener would too, but would make the browser ask the
  // renderer first before every navigation it starts (a URL typed, a
  // reload), a round trip on each.
  if (window.navigation) add.call(window.navigation, 'navigate', mark, true);
  else add.call(window, 'beforeunload', mark, true);
  add.call(window, 'pagehide', mark, true);
  add.call(window, 'submit', mark, true);

  // requestURL is the absolute URL a fetch of input asks for, or ''.
  function requestURL(input) {
    try {
      return new URL(typeof input === 'string' ? input : (input && (input.url || input.href)) || String(input), location.href).href;
    } catch (e) {
      return '';
    }
  }

  // arrivals pairs fetched responses with their resource timing entries,
  // so a body read as a stream knows when it has all come. A record is
  // { gen, urls, arrived, end }; one whose entry never comes (its body
  // is held back unread) is forgotten after MAX_WINDOW_MS.
  const perf = window.performance;
  const byName = perf && Performance.prototype.getEntriesByName;
  const arrivals = (() => {
    let recs = [];
    const Obs = window.PerformanceObserver;
    const on = !!Obs && !!byName && (Obs.supportedEntryTypes || []).includes('resource');
    if (on) {
      new Obs((list) => {
        for (const e of list.getEntries()) {
          const r = recs.find((x) => !x.arrived && x.urls.includes(e.name));
          if (!r) continue;
          r.arrived = true;
          recs = recs.filter((x) => x !== r);
          if (r.end) r.end();
        }
      }).observe({ type: 'resource' });
    }
    return {
      expect(gen, urls) {
        const r = { gen, urls: urls.filter(Boolean), arrived: !on, end: null, at: now() };
        recs = recs.filter((x) => r.at - x.at < MAX_WINDOW_MS);
        if (on) recs.push(r);
        return r;
      },
      // read ends r's tracking: its body is read whole, which ends by itself.
      read(r) { recs = recs.filter((x) => x !== r); },
      // await counts a load of url in the current window until its entry
      // comes, unless one has since the action began. (A page whose
      // timing buffer is full keeps no entries to look in: a load that
      // ended before this call is then waited for to the bound.)
      await(url) {
        if (!on || byName.call(perf, url, 'resource').some((x) => x.startTime >= st.since)) return;
        const r = { gen: st.gen, urls: [url], arrived: false, end: begin(st.gen), at: now() };
        recs.push(r);
        oST.call(window, r.end, MAX_WINDOW_MS);
      },
    };
  })();

  // watchBodies counts a read of a fetched response's body as part of
  // its request (see unread), and any other response's read like a
  // request of its own; a clone's body is the same response's.
  function watchBodies() {
    const proto = window.Response && Response.prototype;
    if (!proto) return;
    const inWindow = (r) => (r.gen === st.gen && st.open ? r.gen : -1);
    for (const name of ['text', 'json', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
      const orig = proto[name];
      if (typeof orig !== 'function') continue;
      proto[name] = disguise(function () {
        const p = orig.apply(this, arguments);
        const r = unread.get(this);
        // A body of the page's own making (a cached response, one it
        // built) is read later all the same.
        let gen = tracking() ? st.gen : -1;
        if (r) {
          unread.delete(this);
          arrivals.read(r);
          gen = inWindow(r);
        }
        const done = begin(gen);
        then.call(p, done, done);
        return p;
      }, orig);
    }
    const body = Object.getOwnPropertyDescriptor(proto, 'body');
    if (body && body.get) {
      const get = body.get;
      Object.defineProperty(proto, 'body', { ...body, get: disguise(function () {
        const b = get.call(this);
        const r = unread.get(this);
        if (r && b) {
          unread.delete(this);
          if (!r.arrived && !r.end) {
            r.end = begin(inWindow(r));
            oST.call(window, r.end, MAX_WINDOW_MS);
          }
        }
        return b;
      }, get) });
    }
    const oClone = proto.clone;
    if (typeof oClone === 'function') {
      proto.clone = disguise(function clone() {
        const c = oClone.apply(this, arguments);
        const r = unread.get(this);
        if (r) unread.set(c, r);
        return c;
      }, oClone);
    }
  }

  // watchStores follows what a page waits for that is no request but is
  // answered later all the same, as a request is: a read or write of its
  // IndexedDB database or its Cache Storage, a file or blob read, a
  // cryptographic operation. Each counts, in the window it was begun in,
  // until it has its answer (an IndexedDB request's success or error, a
  // promise settled, a FileReader's loadend), so the render that follows
  // it is the action's effect rather than after its answer.
  function watchStores() {
    // follow wraps each method of names so a call counts until answered
    // (the call's result, its this, done) has it end.
    const follow = (proto, names, answered) => {
      if (!proto) return;
      for (const name of names) {
        const orig = proto[name];
        if (typeof orig !== 'function') continue;
        proto[name] = disguise(function () {
          const done = begin(tracking() ? st.gen : -1);
          let r;
          try {
            r = orig.apply(this, arguments);
          } catch (e) {
            done();
            throw e;
          }
          answered(r, this, done);
          return r;
        }, orig);
      }
    };
    const promised = (proto, names) => follow(proto, names, (p, self, done) => {
      if (p && typeof p.then === 'function') then.call(p, done, done);
      else done();
    });
    // evented: the answer is an event on what the call returns (an
    // IDBRequest), on this (a FileReader) or on this's request (a cursor).
    const evented = (proto, names, on, ends) => follow(proto, names, (r, self, done) => {
      const target = on === 'this' ? self : (on === 'request' ? (self.request || r) : r);
      if (target && typeof target.addEventListener === 'function') {
        for (const ev of ends) add.call(target, ev, done, { once: true });
      } else done();
    });
    const idb = ['add', 'put', 'get', 'getAll', 'getAllKeys', 'getKey', 'count', 'delete', 'clear', 'openCursor', 'openKeyCursor'];
    evented(window.IDBObjectStore && IDBObjectStore.prototype, idb, 'result', ['success', 'error']);
    evented(window.IDBIndex && IDBIndex.prototype, idb.filter((n) => !['add', 'put', 'delete', 'clear'].includes(n)), 'result', ['success', 'error']);
    evented(window.IDBCursor && IDBCursor.prototype, ['continue', 'advance', 'continuePrimaryKey'], 'request', ['success', 'error']);
    evented(window.IDBFactory && IDBFactory.prototype, ['open', 'deleteDatabase'], 'result', ['success', 'error', 'blocked']);
    evented(window.FileReader && FileReader.prototype, ['readAsText', 'readAsArrayBuffer', 'readAsDataURL', 'readAsBinaryString'], 'this', ['loadend']);
    promised(window.CacheStorage && CacheStorage.prototype, ['open', 'match', 'has', 'keys', 'delete']);
    promised(window.Cache && Cache.prototype, ['match', 'matchAll', 'add', 'addAll', 'put', 'delete', 'keys']);
    promised(window.Blob && Blob.prototype, ['text', 'arrayBuffer', 'bytes']);
    promised(window.SubtleCrypto && SubtleCrypto.prototype, ['encrypt', 'decrypt', 'sign', 'verify', 'digest', 'generateKey', 'deriveKey', 'deriveBits', 'importKey', 'exportKey', 'wrapKey', 'unwrapKey']);
  }

  // watchTasks waits for an idle callback and a scheduled task the
  // action asked for like for a short timer, until it has run (or was
  // cancelled): what the page puts off to an idle moment is still the
  // click's effect.
  function watchTasks() {
    const pend = () => {
      if (!tracking() || st.counted >= MAX_TIMERS) return null;
      st.counted++;
      const key = {};
      st.timers.set(key, st.gen);
      changed();
      return () => { if (st.timers.delete(key)) changed(); };
    };
    const oRIC = window.requestIdleCallback, oCIC = window.cancelIdleCallback;
    if (oRIC) {
      const byID = new Map();
      window.requestIdleCallback = disguise(function requestIdleCallback(fn, opts) {
        if (typeof fn !== 'function') return oRIC.apply(window, arguments);
        const done = pend();
        const gen = done ? st.gen : -1;
        let id = 0;
        id = oRIC.call(window, wrapCallback(fn, gen, () => { byID.delete(id); if (done) done(); }), opts);
        if (done) byID.set(id, done);
        return id;
      }, oRIC);
      if (oCIC) {
        window.cancelIdleCallback = disguise(function cancelIdleCallback(id) {
          const done = byID.get(id);
          if (done) { byID.delete(id); done(); }
          return oCIC.call(window, id);
        }, oCIC);
      }
    }
    const sch = window.scheduler;
    const oPT = sch && sch.postTask;
    if (typeof oPT === 'function') {
      sch.postTask = disguise(function postTask(fn, opts) {
        if (typeof fn !== 'function') return oPT.apply(sch, arguments);
        const done = pend();
        const p = oPT.call(sch, wrapCallback(fn, done ? st.gen : -1), opts);
        if (done) Promise.prototype.then.call(p, done, done);
        return p;
      }, oPT);
    }
  }

  // watchMessages waits for a message posted on a MessageChannel (how
  // schedulers queue the work a click starts) like for a short timer:
  // netwatch posts a marker of its own behind it, on the same task
  // source, and the message counts as handled when the marker has come
  // back twice. A port whose other end is in another frame or a worker
  // is answered there, unseen; the marker bounds the wait all the same.
  function watchMessages() {
    const oPost = window.MessagePort && MessagePort.prototype.postMessage;
    if (!oPost) return;
    const ch = new MessageChannel();
    let seq = 0;
    ch.port1.onmessage = (e) => {
      const [key, hops] = e.data;
      if (hops > 1) oPost.call(ch.port2, [key, hops - 1]);
      else if (st.timers.delete(key)) changed();
    };
    MessagePort.prototype.postMessage = disguise(function postMessage() {
      const r = oPost.apply(this, arguments);
      if (this !== ch.port2 && tracking() && st.counted < MAX_TIMERS) {
        st.counted++;
        const key = 'message ' + ++seq;
        st.timers.set(key, st.gen);
        changed();
        oPost.call(ch.port2, [key, 2]);
      }
      return r;
    }, oPost);
  }

  // "again" opens a window for the same action (settleAgain): its loads
  // are those begun since the action's first.
  add.call(window, '__vroom_net_open', (e) => {
    if (e.detail !== 'again') st.since = now();
    st.gen++;
    st.open = true;
    st.until = now() + MAX_WINDOW_MS;
    st.reqs = 0;
    st.counted = 0;
    st.busy = 0;
    st.timers.clear();
  }, true);
  // The code a script began to load, which the host heard of and no
  // wrapper here could: each URL is counted in the window until its
  // response is whole.
  add.call(window, '__vroom_net_loads', (e) => {
    let urls = [];
    try { urls = JSON.parse(e.detail); } catch (err) { return; }
    if (Array.isArray(urls)) for (const u of urls) if (typeof u === 'string') arrivals.await(u);
  }, true);
  add.call(window, '__vroom_net_close', () => {
    st.open = false;
    st.reqs = 0;
    st.timers.clear();
  }, true);
  add.call(window, '__vroom_net_watch', (e) => { st.watch = Math.max(0, st.watch + (e.detail ? 1 : -1)); }, true);
  add.call(window, '__vroom_net_q', () => {
    fire.call(window, new CustomEvent('__vroom_net_a', { detail: state() }));
  }, true);
})();
