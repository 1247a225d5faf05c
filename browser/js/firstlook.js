// The first look at a document its tab navigated to, taken by the page
// itself once it has loaded. Asked for after the load, a look waits behind
// the new page's first frame and whatever else the browser does at a load;
// taken in the task right after the load, it reaches the Go side first.
//
// Before it navigates, the Go side installs a plan for the new document's
// world (the look's arguments, a token, the URL it expects), which runs
// after the walker as the document starts and calls planLook.

// planLook takes the look the plan asks for once the document has loaded,
// and sends it through the binding only the walker's world has.
function planLook(p) {
  if (!AT_DOC_START || (p.url && p.url !== location.href)) return false;
  const send = globalThis[LOOK_BINDING];
  if (typeof send !== 'function') return false;
  watchMutations();
  addEventListener('load', () => {
    // A message's task runs once the load's is over: after the page's own
    // load handlers, which may still change what there is to see.
    const c = new MessageChannel();
    c.port1.onmessage = async () => {
      armLook(p.args && p.args.seq);
      let obs = null;
      try { obs = await observe(p.args); } catch (e) { obs = { err: String(e) }; }
      const icon = document.querySelector('link[rel~="icon"]');
      const fav = icon ? icon.href : (location.protocol.startsWith('http') ? location.origin + '/favicon.ico' : '');
      send(JSON.stringify({ token: p.token, obs, fav }));
    };
    c.port2.postMessage(0);
  }, { once: true });
  return true;
}

// settleLook is settle followed, in the same call, by the look at the
// page it settled in: the look the caller asks for next, without another
// round trip to the page.
async function settleLook(look, ...args) {
  const st = await settle(...args);
  armLook(look && look.seq);
  try { st.look = await observe(look); } catch (e) { st.look = null; }
  return st;
}

// A look kept for its caller stands for the page only until the page
// changes: the first change after it (a mutation, a scroll, input, focus
// moving) is reported through the binding, with the look's number. Armed
// before the look is taken, so a change during it counts too.
function armLook(seq) {
  if (!seq || typeof globalThis[LOOK_BINDING] !== 'function') return;
  watchMutations();
  S.armed = seq;
}
function pageChanged() {
  const seq = S.armed;
  if (!seq) return;
  S.armed = 0;
  try { globalThis[LOOK_BINDING](JSON.stringify({ changed: seq })); } catch (e) { /* the binding is gone with its document */ }
}
