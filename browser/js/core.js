// The walker's shared state (S) and the page events it keeps up with:
// trusted presses, mutations, and the main world's network counts
// (netwatch.js); with the small string and shadow-DOM helpers every module
// uses.

const S = {
  refs: new WeakMap(),   // element -> ref
  byRef: new Map(),      // ref -> {w: WeakRef, keys: [...]}
  muts: 0,               // mutations seen since install
  lastMut: 0,            // performance.now() of the last mutation
  downs: 0,              // trusted mousedowns delivered to this frame
  downAt: null,          // WeakRef to what the last one hit
  installed: performance.now(),
  onMut: new Set(),      // callbacks of waits that react to mutations
  onNet: new Set(),      // callbacks of waits that react to the network
  armed: 0,              // the kept look a change is reported for (firstlook.js)
};

// Counting trusted presses, and keeping what the last one hit, tells a
// click that reached its target in this frame from one Chromium
// acknowledged without delivering, or delivered to the wrong point (an
// out-of-process frame whose hit-test data is not ready, or lags a layout
// shift of its parent).
addEventListener('mousedown', (e) => { if (e.isTrusted) { S.downs++; S.downAt = new WeakRef(e.composedPath()[0] || e.target); } }, true);
// Scroll events (the page's and every scroll box's: they do not bubble,
// but a capturing listener on window hears them all) tell a scroll that
// moved, and when its animation ended, from one that had nowhere to go.
S.scrolls = 0;
S.lastScroll = 0;
addEventListener('scroll', () => { S.scrolls++; S.lastScroll = performance.now(); pageChanged(); }, { capture: true, passive: true });
for (const type of ['input', 'change', 'focusin', 'focusout']) addEventListener(type, () => pageChanged(), true);
// Mutations are counted from the walker's first use: installed as its
// document starts (AT_DOC_START), it would otherwise pay for every node
// the parser adds to a page it may never be asked about.
function watchMutations() {
  if (S.mo) return;
  S.installed = performance.now();
  S.mo = new MutationObserver((list) => {
    S.muts += list.length;
    S.lastMut = performance.now();
    pageChanged();
    for (const f of S.onMut) f();
  });
  S.mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}
if (!AT_DOC_START) watchMutations();

// The page's main world counts its requests and short timers
// (netwatch.js) and answers on window events, which cross worlds. A
// document that predates the instrumentation answers nothing: no
// requests known.
let netAnswer = null;
addEventListener('__vroom_net_a', (e) => { netAnswer = e.detail; }, true);
addEventListener('__vroom_net_ch', () => { for (const f of S.onNet) f(); }, true);
function net(kind, detail) {
  netAnswer = null;
  dispatchEvent(new CustomEvent('__vroom_net_' + kind, { detail }));
  return netAnswer;
}
const NO_NET = { inflight: 0, young: 0, reqs: 0, timers: 0, open: false, busy: 0 };
const netState = () => {
  const n = net('q');
  return n && typeof n === 'object' ? n : NO_NET;
};

const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();

function deepActive() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

function composedContains(anc, el) {
  for (let n = el; n; ) {
    if (n === anc) return true;
    if (n.parentElement) n = n.parentElement;
    else { const r = n.getRootNode(); n = r && r.host ? r.host : null; }
  }
  return false;
}
