// Aiming at a target before an action: the point to press, scrolled into
// view, and the hit test that says whether a press there reaches it or
// what layer covers it.

// hitAt is the element a press at x, y lands on, inside open shadow
// roots.
function hitAt(x, y) {
  let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot) {
    const inner = h.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === h) break;
    h = inner;
  }
  return h;
}

// hits reports whether a press landing on h reaches el: h is el, in el,
// its label, or a small wrapper of it.
function hits(el, h) {
  if (h === el || composedContains(el, h)) return true;
  if (el.labels) for (const l of el.labels) if (l === h || composedContains(l, h)) return true;
  // A control inside a label that received the hit (a styled wrapper).
  const lab = h.closest && h.closest('label');
  if (lab && lab.control === el) return true;
  // Custom controls often nest the hit target's parent.
  return composedContains(h, el) && h.getBoundingClientRect().width * h.getBoundingClientRect().height <= el.getBoundingClientRect().width * el.getBoundingClientRect().height * 1.5;
}

function hitOK(el, x, y) {
  const h = hitAt(x, y);
  if (!h) return { ok: false, hit: 'nothing' };
  if (hits(el, h)) return { ok: true };
  let desc = h.tagName.toLowerCase();
  if (h.id) desc += '#' + h.id;
  else if (h.className && typeof h.className === 'string') desc += '.' + h.className.trim().split(/\s+/).slice(0, 2).join('.');
  const nm = squash(h.getAttribute('aria-label') || h.textContent || '');
  if (nm) desc += ' "' + clip(nm, 40) + '"';
  return { ok: false, hit: desc, layer: layerOf(h, el) };
}

// overlaid says whether n sits on a layer of its own above the page:
// fixed (always painted over the flow), or absolute or sticky with a
// z-index.
function overlaid(n) {
  const cs = getComputedStyle(n);
  return cs.position === 'fixed' || ((cs.position === 'absolute' || cs.position === 'sticky') && cs.zIndex !== 'auto');
}

// layerOf is the layer covering el where h was hit, the one whose
// controls get it out of the way: the outermost ancestor of h (not
// holding el) that is a dialog, aria-modal or overlaid, else h's
// topmost ancestor under <body> not holding el. A cookie banner, a
// newsletter backdrop without a role, a chat bubble and a sticky header
// are each one such layer, whatever their markup inside.
function layerOf(h, el) {
  let best = null, top = null;
  for (let n = h; n && n.nodeType === 1 && n !== document.body && n !== document.documentElement; n = parentOf(n)) {
    if (el && composedContains(n, el)) break;
    top = n;
    const r = n.getAttribute('role');
    if (r === 'dialog' || r === 'alertdialog' || n.tagName === 'DIALOG' || n.getAttribute('aria-modal') === 'true' || overlaid(n)) best = n;
  }
  return best || top;
}

// covered is the answer for a target covered at x, y. With next (the
// tab's ref counter) the covering layer gets a ref, so the caller can
// observe within it and show the controls that close it.
function covered(hit, x, y, next) {
  const out = { err: 'covered', hit: hit.hit, x, y };
  if (hit.layer && next > 0) {
    const L = hit.layer;
    [out.layer, out.nextRef] = refFor(L, keysOf(L, L.tagName, 'layer', '', positioner()), next, null);
  }
  return out;
}

// prepare checks a target and scrolls it into view; it returns the point
// to press in frame viewport coordinates.
//
// With focus (typing), an editable target is then focused and its content
// selected, so the text replaces it; the baseline is taken first.
//
// next is the tab's ref counter: a covering layer gets a ref from it.
function prepare(ref, scroll, focus, next) {
  const el = resolve(ref);
  if (!el) return { err: 'gone' };
  if (!el.isConnected) return { err: 'detached' };
  if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') return { err: 'disabled' };
  if (el.closest('[inert]')) return { err: 'inert' };
  let target = el;
  let r = el.getBoundingClientRect();
  const tag = el.tagName;
  const vis = el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  if (!vis || r.width * r.height < 4) {
    const lr = tag === 'INPUT' ? visibleLabelBox(el) : null;
    if (!lr) {
      if (!el.checkVisibility({ visibilityProperty: true }) || r.width === 0 || r.height === 0) return { err: 'hidden' };
    } else {
      for (const l of el.labels) { const b = l.getBoundingClientRect(); if (b.width > 0) { target = l; break; } }
    }
  }
  let a = aim(target, null);
  // A target cut by the viewport or by a scroller it sits in (a row of
  // 5,000 buttons scrolled sideways) is scrolled into view: every
  // scrolling ancestor moves, not only the page.
  if (scroll !== false && (a.cut || a.err)) a = aim(target, 'center');
  if (a.err) return a;
  let hit = hitOK(el, a.x, a.y);
  // Page chrome over part of the viewport — a sticky header or footer,
  // a chat bubble — covers a target only where the page happens to be
  // scrolled: moved elsewhere in the viewport, it is clear. A dialog or
  // a layer over the whole viewport is not scrolled away from; its
  // controls are the answer.
  for (const block of ['center', 'end', 'start']) {
    if (hit.ok || scroll === false || !chrome(hit.layer)) break;
    a = aim(target, block);
    if (a.err) return a;
    hit = hitOK(el, a.x, a.y);
  }
  const x = a.x, y = a.y;
  if (!hit.ok) return covered(hit, x, y, next);
  // The baseline for the verdict is taken after our own scrolling, so
  // scrolling a target into view never counts as an effect.
  const editable = isEditable(el);
  const fp = fingerprint(ref, true);
  if (focus && editable) focusAll(el);
  return { x, y, tag, type: el.type || '', editable, role: roleOf(el, tag), fp };
}

// aim is the point to press on target: the centre of the part of its box
// that shows, after scrolling it to block ('center', 'end', 'start') when
// set. cut says part of the box is hidden. If the clipping guess was
// wrong (an absolutely placed popup escapes its ancestor's overflow), the
// part inside the viewport, and the hit test has the last word.
function aim(target, block) {
  if (block) target.scrollIntoView({ block, inline: 'center', behavior: 'instant' });
  const r = target.getBoundingClientRect();
  let v = shownRect(target, r);
  const cut = v.right - v.left < r.width - 0.5 || v.bottom - v.top < r.height - 0.5;
  if (v.right - v.left < 1 || v.bottom - v.top < 1) v = shownRect(null, r);
  if (v.right - v.left < 1 || v.bottom - v.top < 1) return { err: 'offscreen' };
  return { x: (v.left + v.right) / 2, y: (v.top + v.bottom) / 2, cut };
}

// chrome says whether layer L is page chrome a target can be scrolled
// out from under: not a dialog, and covering less than most of the
// viewport.
function chrome(L) {
  if (!L || L.tagName === 'DIALOG' || L.getAttribute('aria-modal') === 'true') return false;
  const role = L.getAttribute('role');
  if (role === 'dialog' || role === 'alertdialog') return false;
  const b = L.getBoundingClientRect();
  const w = Math.max(0, Math.min(b.right, innerWidth) - Math.max(b.left, 0));
  const h = Math.max(0, Math.min(b.bottom, innerHeight) - Math.max(b.top, 0));
  return w * h < innerWidth * innerHeight * 0.5;
}

// shownRect is the part of box r inside the viewport and, with el, inside
// every ancestor of el that clips its overflow.
function shownRect(el, r) {
  const v = { left: Math.max(r.left, 0), top: Math.max(r.top, 0), right: Math.min(r.right, innerWidth), bottom: Math.min(r.bottom, innerHeight) };
  for (let n = el && parentOf(el); n && n !== document.body && n !== document.documentElement; n = parentOf(n)) {
    const cs = getComputedStyle(n);
    const cx = cs.overflowX !== 'visible', cy = cs.overflowY !== 'visible';
    if (!cx && !cy) continue;
    const b = n.getBoundingClientRect();
    if (cx) { v.left = Math.max(v.left, b.left + n.clientLeft); v.right = Math.min(v.right, b.left + n.clientLeft + n.clientWidth); }
    if (cy) { v.top = Math.max(v.top, b.top + n.clientTop); v.bottom = Math.min(v.bottom, b.top + n.clientTop + n.clientHeight); }
  }
  return v;
}

function isEditable(el) {
  if (el.tagName === 'TEXTAREA') return !el.readOnly;
  if (el.tagName === 'INPUT') return !el.readOnly && !/^(checkbox|radio|submit|button|reset|image|file|range|color)$/i.test(el.type || '');
  return el.isContentEditable;
}

function recheck(ref, x, y, next) {
  const el = resolve(ref);
  if (!el) return { err: 'gone' };
  const hit = hitOK(el, x, y);
  return hit.ok ? {} : covered(hit, x, y, next);
}
