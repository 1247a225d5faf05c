// Silences or lets play the document's sound: Chromium has no per-tab
// mute, so a muted tab's media elements are kept muted and its Web Audio
// contexts suspended. Installed once per document; each run sets the
// wanted state (want, below), which applies to what plays now and to
// what starts later.
(() => {
  const want = %s;
  let st = window.__vroomMute;
  if (!st) {
    st = { on: false, ours: new WeakSet(), ctxs: new Set() };
    Object.defineProperty(window, '__vroomMute', { value: st });
    const mute = (el) => {
      if (!el.muted) {
        el.muted = true;
        st.ours.add(el);
      }
    };
    const play = HTMLMediaElement.prototype.play;
    HTMLMediaElement.prototype.play = function (...a) {
      if (st.on) mute(this);
      return play.apply(this, a);
    };
    document.addEventListener('volumechange', (e) => {
      if (st.on && e.target instanceof HTMLMediaElement) mute(e.target);
    }, true);
    for (const name of ['AudioContext', 'webkitAudioContext']) {
      const Orig = window[name];
      if (typeof Orig !== 'function') continue;
      const resume = Orig.prototype.resume;
      Orig.prototype.resume = function (...a) {
        st.ctxs.add(this);
        return st.on ? Promise.resolve() : resume.apply(this, a);
      };
      window[name] = new Proxy(Orig, {
        construct(target, args, nt) {
          const c = Reflect.construct(target, args, nt);
          st.ctxs.add(c);
          if (st.on) c.suspend();
          return c;
        },
      });
    }
    st.apply = () => {
      for (const el of document.querySelectorAll('audio, video')) {
        if (st.on) mute(el);
        else if (st.ours.has(el)) {
          el.muted = false;
          st.ours.delete(el);
        }
      }
      for (const c of st.ctxs) {
        if (c.state === 'closed') st.ctxs.delete(c);
        else if (st.on) c.suspend();
        else c.resume();
      }
    };
  }
  st.on = want;
  st.apply();
})();
