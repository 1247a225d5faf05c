// Walking and geometry: the visit of every element (open shadow roots
// included), the style checks of what shows, and where controls are, kept
// by an IntersectionObserver rather than measured; the scroll position and
// where an iframe's viewport lies, for the frames' merge.

// visibleOK applies the style checks (visibility, opacity, display of
// ancestors); a transparent checkbox passes through its visible label,
// and so does a file input, which sites often hide altogether behind a
// label styled as a button or a drop zone (it takes its files without a
// click, so it need not be rendered).
function visibleOK(c) {
  const el = c.el;
  if (el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return true;
  const file = c.tag === 'INPUT' && el.type === 'file';
  if (c.tag === 'INPUT' && (file || el.type === 'checkbox' || el.type === 'radio') && (file || el.checkVisibility({ visibilityProperty: true }))) {
    const lr = visibleLabelBox(el);
    if (!lr) return false;
    c.r = lr; c.viaLabel = true; c.checked = true;
    c.inView = lr.bottom > 0 && lr.right > 0 && lr.top < innerHeight && lr.left < innerWidth;
    return true;
  }
  return false;
}

function visibleLabelBox(el) {
  if (!el.labels) return null;
  for (const l of el.labels) {
    const r = l.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && l.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return r;
  }
  return null;
}

// walk visits every element in document order, entering open shadow
// roots, and calls fn(el, tag). Iframes are walked in their own world.
function walk(root, fn) {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop();
    if (n.nodeType === 1) {
      const tag = n.tagName;
      if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'NOSCRIPT' || tag === 'HEAD') continue;
      fn(n, tag);
      if (n.shadowRoot) stack.push(n.shadowRoot);
    }
    for (let c = n.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
}

// Geometry comes from an IntersectionObserver that watches every control
// once seen: the browser reports viewport crossings as they happen, so an
// observation reads cached state instead of forcing a layout query per
// element (about 15 µs each on a slow machine: 75 ms for 5,000 buttons).
// Only the few controls reported get an exact box.
function noteGeo(entries) {
  for (const e of entries) {
    const r = e.boundingClientRect;
    S.geo.set(e.target, { inView: e.isIntersecting, top: r.top + scrollY, left: r.left + scrollX, w: r.width, h: r.height, muts: S.muts });
  }
}
S.geo = new WeakMap();
// FRESH_MEASURED is how many new controls an observation measures itself
// rather than wait a frame for their reports: about 15 µs each here, so
// the wait (up to a frame, 17 ms) costs more below it.
const FRESH_MEASURED = 150;
S.waiters = [];
S.io = new IntersectionObserver((entries) => {
  noteGeo(entries);
  const w = S.waiters; S.waiters = [];
  for (const f of w) f();
}, { threshold: 0 });

// An element that crosses no viewport edge as it is shown (a list shown
// from display:none with most of its options clipped by its own scroll
// box, a section revealed below the fold) gets no intersection report,
// so its cached box would stay the empty one it had while hidden: an
// empty box is measured again once the DOM has changed since. (A
// ResizeObserver would hear it take a size only at the next frame, after
// the action that showed it has been judged.)
//
// geoOf is el's cached geometry, measured when missing, or empty and the
// DOM changed since.
function geoOf(el) {
  const g = S.geo.get(el);
  return g && (g.w * g.h > 0 || g.muts === S.muts) ? g : syncGeo(el);
}

// syncGeo measures el as the IntersectionObserver would report it: in
// view when some of it shows inside the viewport and every scroll box
// it sits in (an option below its list's fold is not in view).
function syncGeo(el) {
  const r = el.getBoundingClientRect();
  let inView = r.width + r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  if (inView) { const v = shownRect(el, r); inView = v.right > v.left && v.bottom > v.top; }
  const g = { inView, top: r.top + scrollY, left: r.left + scrollX, w: r.width, h: r.height, muts: S.muts };
  S.geo.set(el, g);
  return g;
}

function scrollInfo() {
  return { sx: scrollX, sy: scrollY, vw: innerWidth, vh: innerHeight };
}

// frameBox is where an iframe's viewport lies in its document; with
// within (a ref), whether the iframe lies inside that element. id, the
// frame's CDP id, names the iframe for the reader (read.js), which marks
// where the frame's text goes.
function frameBox(el, within, id) {
  if (id) S.frameIds.set(el, id);
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const L = within ? resolve(within) : null;
  return {
    inside: !!L && (L === el || composedContains(L, el)),
    x: r.left + el.clientLeft + parseFloat(cs.paddingLeft),
    y: r.top + el.clientTop + parseFloat(cs.paddingTop),
    w: el.clientWidth, h: el.clientHeight,
    visible: el.checkVisibility({ visibilityProperty: true }) && r.width > 0 && r.height > 0,
  };
}
