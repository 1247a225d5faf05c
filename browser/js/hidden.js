// Hidden text: whether the text directly in an element is something a
// person can see, so names and page text leave out what they cannot.

// Hidden text is not the page: text a person cannot see is
// left out of names and of page text, so an injection written in it
// never reaches the model. hiddenHow(el) says why the text directly in
// el is unseen ('' when it is seen): not rendered (display, visibility,
// opacity 0, a closed <details>), too small (font-size under 2px),
// clipped (el or an ancestor that clips its overflow is at most 2px
// wide or high, or clipped by clip/clip-path: the visually-hidden
// pattern), off the page (wholly left of or above the document's
// origin, where no scrolling reaches), or drawn in its background's
// colour (contrast under 1.3:1, or a transparent colour). Comments are
// never text. ARCHITECTURE.md says which kinds are dropped or marked.
let hidCache = null;

function hidMap() {
  if (!hidCache) {
    hidCache = new Map();
    // One cache per task: styles do not change inside a synchronous run.
    queueMicrotask(() => { hidCache = null; });
  }
  return hidCache;
}

function hiddenHow(el) {
  const cache = hidMap();
  let h = cache.get(el);
  if (h !== undefined) return h;
  h = '';
  if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) h = 'not rendered';
  else {
    const cs = getComputedStyle(el);
    if (parseFloat(cs.fontSize) < 2) h = 'zero size';
    else h = boxHidden(el) || colourHidden(el, cs);
  }
  cache.set(el, h);
  return h;
}

// boxHidden: el or an ancestor clips it away, or el is off the page.
function boxHidden(el) {
  return ownBoxHidden(el, true) || clippedAbove(parentOf(el));
}

// clippedAbove: an ancestor from n up clips its content away; cached
// per ancestor, so siblings share the walk up.
function clippedAbove(n) {
  if (!n || n === document.documentElement || n === document.body) return '';
  const cache = hidMap();
  const key = 'up';
  let m = cache.get(key);
  if (!m) { m = new Map(); cache.set(key, m); }
  let h = m.get(n);
  if (h === undefined) {
    h = ownBoxHidden(n, false) || clippedAbove(parentOf(n));
    m.set(n, h);
  }
  return h;
}

// ownBoxHidden judges n's own box: clipped to at most 2px, or (self,
// the text's own element) wholly before the page's origin.
function ownBoxHidden(n, self) {
  const cs = getComputedStyle(n);
  const clips = cs.overflowX !== 'visible' || cs.overflowY !== 'visible';
  const clipRect = cs.clip && cs.clip !== 'auto' && (cs.position === 'absolute' || cs.position === 'fixed');
  const clipPath = /inset\(\s*50%|circle\(\s*0/.test(cs.clipPath || '');
  if (!clips && !clipRect && !clipPath && !self) return '';
  const r = n.getBoundingClientRect();
  if (clipPath) return 'clipped';
  if (clipRect && /rect\(\s*0(px)?[ ,]+0(px)?[ ,]+0(px)?[ ,]+0(px)?\s*\)/.test(cs.clip)) return 'clipped';
  if ((clips || clipRect) && (r.width <= 2 || r.height <= 2)) return 'clipped';
  if (self && (r.right + scrollX <= 0 || r.bottom + scrollY <= 0)) return 'off the page';
  return '';
}

function rgba(c) {
  const m = /rgba?\(([^)]+)\)/.exec(c || '');
  if (!m) return null;
  const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(parseFloat);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
}

function luminance(c) {
  const ch = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
}

// colourHidden: the text's colour is (nearly) its background's. The
// background is the nearest opaque one up the tree; over an image it
// cannot be judged, and the text counts as seen.
function colourHidden(el, cs) {
  const fg = rgba(cs.color);
  if (!fg) return '';
  if (fg.a < 0.1) return 'transparent text';
  const bg = backdrop(el, cs);
  if (!bg) return '';
  const l1 = luminance(fg), l2 = luminance(bg);
  const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  return ratio < 1.3 ? 'same colour as its background' : '';
}

// backdrop is the colour behind n's text: the nearest opaque background
// up the tree (white at the top), or null over an image. Cached per
// ancestor, as clippedAbove is: siblings share the walk up.
function backdrop(n, cs) {
  if (!n) return { r: 255, g: 255, b: 255, a: 1 };
  const cache = hidMap();
  let m = cache.get('bg');
  if (!m) { m = new Map(); cache.set('bg', m); }
  let bg = m.get(n);
  if (bg !== undefined) return bg;
  const s = cs || getComputedStyle(n);
  if (s.backgroundImage && s.backgroundImage !== 'none') bg = null;
  else {
    const b = rgba(s.backgroundColor);
    bg = b && b.a > 0.5 ? b : backdrop(parentOf(n), null);
  }
  m.set(n, bg);
  return bg;
}
