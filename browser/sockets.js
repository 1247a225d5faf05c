// The guard's wrapper of a guarded tab's documents and dedicated workers
// (sockets.go says why each part is there); hosts are those the holder
// allows sockets to. What it refuses is told to the browser through the
// binding, taken out of the global before any script of the page's runs,
// so a page can neither call it nor see it.
(() => {
  const hosts = HOSTS;
  const bound = globalThis.__vroomRefused;
  delete globalThis.__vroomRefused;
  if (globalThis.WebSocket && globalThis.WebSocket.__vroomHosts) {
    globalThis.WebSocket.__vroomHosts.splice(0, Infinity, ...hosts);
    return;
  }
  // Each kind and origin is told once a document: a widget that retries
  // its socket every second would otherwise fill the run's log.
  const told = new Set();
  const report = (kind, url) => {
    if (typeof bound !== 'function') return;
    let where = '';
    try {
      where = url ? new URL(url).origin : '';
    } catch (e) {
      where = '';
    }
    if (told.has(kind + ' ' + where)) return;
    told.add(kind + ' ' + where);
    try {
      bound(JSON.stringify({ kind, url: String(url || '') }));
    } catch (e) {
      // The report is best effort: the refusal stands without it.
    }
  };
  // install wraps the global G: this one's, or a window this one opened
  // whose document has no request of its own yet (window.open() is
  // about:blank until it navigates), and whose globals this one's
  // scripts can use before its tab's own wrapper is in.
  const install = (G) => {
    const W = G.WebSocket;
    // A host with a port is that origin's; without one, any port's. The
    // document's (or worker's) own origin: a blob or srcdoc one has no
    // host in its location, only in its origin.
    let own = '';
    try {
      own = new URL(G.origin).host.toLowerCase();
    } catch (e) {
      own = '';
    }
    const ok = (u) =>
      (own !== '' && u.host === own) ||
      hosts.some((a) => a === u.host || a === u.hostname || (a.startsWith('*.') && u.hostname.endsWith(a.slice(1))));
    const refuse = (kind, url, what) => {
      report(kind, url);
      return new DOMException(
        'the browser lets this page use no ' + what + ' while an agent drives it',
        'SecurityError',
      );
    };
    if (W) {
      const S = function WebSocket(url, protocols) {
        const u = new URL(url, G.location.href);
        if (!ok({ host: u.host.toLowerCase(), hostname: u.hostname.replace(/^\[|\]$/g, '').toLowerCase() })) {
          throw refuse('websocket', u.href, "socket to another site than the run's");
        }
        return protocols === undefined ? new W(url) : new W(url, protocols);
      };
      S.prototype = W.prototype;
      for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) S[k] = W[k];
      Object.defineProperty(S, '__vroomHosts', { value: hosts });
      Object.defineProperty(W.prototype, 'constructor', { value: S, writable: true, configurable: true });
      Object.defineProperty(G, 'WebSocket', { value: S, writable: true, configurable: true });
    }
    // The other constructors of sockets, by the same rule.
    for (const [k, kind] of [
      ['WebSocketStream', 'websocket'],
      ['WebTransport', 'webtransport'],
    ]) {
      const C = G[k];
      if (typeof C !== 'function') continue;
      const D = function (url, options) {
        const u = new URL(url, G.location.href);
        if (!ok({ host: u.host.toLowerCase(), hostname: u.hostname.replace(/^\[|\]$/g, '').toLowerCase() })) {
          throw refuse(kind, u.href, "socket to another site than the run's");
        }
        return new C(url, options);
      };
      D.prototype = C.prototype;
      Object.defineProperty(C.prototype, 'constructor', { value: D, writable: true, configurable: true });
      Object.defineProperty(G, k, { value: D, writable: true, configurable: true });
    }
    for (const k of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceTransport']) {
      if (k in G) {
        Object.defineProperty(G, k, {
          value: function () {
            throw refuse('webrtc', '', 'WebRTC');
          },
          writable: true,
          configurable: true,
        });
      }
    }
    if (G.SharedWorker) {
      Object.defineProperty(G, 'SharedWorker', {
        value: function SharedWorker(url) {
          throw refuse('sharedworker', new URL(url, G.location.href).href, 'shared worker');
        },
        writable: true,
        configurable: true,
      });
    }
    if (G.ServiceWorkerContainer && G.navigator && G.navigator.serviceWorker) {
      Object.defineProperty(G.ServiceWorkerContainer.prototype, 'register', {
        value: function (url) {
          return Promise.reject(refuse('serviceworker', new URL(url, G.location.href).href, 'service worker'));
        },
        writable: true,
        configurable: true,
      });
    }
    if (typeof G.open === 'function') {
      const open = G.open;
      Object.defineProperty(G, 'open', {
        value: function (...args) {
          const w = open.apply(this, args);
          try {
            if (w && w.WebSocket && !w.WebSocket.__vroomHosts) {
              install(w);
              // Its refusals are told through this document's binding;
              // the one its own tab's setup adds to its global later
              // (the initial empty document has none of its own scripts
              // run) must not be in its page's reach either.
              Object.defineProperty(w, '__vroomRefused', { get: () => undefined, set: () => {}, configurable: false });
            }
          } catch (e) {
            // Another origin's window: its globals are out of this page's reach.
          }
          return w;
        },
        writable: true,
        configurable: true,
      });
    }
  };
  install(globalThis);
})();
