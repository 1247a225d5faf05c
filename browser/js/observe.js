// The observation: one pass over the frame that finds, ranks and
// describes its controls, with the page's headings, text and dialog.

async function observe(o) {
  const t0 = performance.now();
  const vw = innerWidth, vh = innerHeight;
  const limit = o.limit > 0 ? o.limit : 40;
  const roles = o.roles && o.roles.length ? new Set(o.roles) : null;
  const query = squash(o.query).toLowerCase();
  // Within keeps one element's subtree (a dialog, a card).
  const root = o.within ? resolve(o.within) : document.documentElement;
  if (!root) return { err: 'gone', nextRef: o.nextRef };
  const dlg0 = activeDialog();
  // A modal (a modal dialog, or a backdrop over the page) blocks the page
  // behind it; a look within one subtree is not about the page.
  let modal = o.within ? null : modalLayer(dlg0);
  let dlg = dlg0 && (!modal || composedContains(modal, dlg0)) ? dlg0 : modal;
  const raw = [];
  const heads = [];
  noteGeo(S.io.takeRecords());
  let fresh = 0;
  walk(root, (el, tag) => {
    if ((tag === 'H1' || tag === 'H2' || tag === 'H3') && heads.length < 12) {
      if (el.checkVisibility()) heads.push(clip(seenText(el, null), 80));
    }
    const role = candidateRole(el, tag);
    if (!role) return;
    if (roles && !roles.has(role)) return;
    if (!S.geo.has(el)) { S.io.observe(el); fresh++; }
    raw.push({ el, tag, role });
  });
  if (fresh > FRESH_MEASURED) {
    // Many new controls: their first report arrives with the next frame;
    // a page that renders no frames (hidden, busy) gets measured directly.
    await new Promise((res) => { S.waiters.push(res); setTimeout(res, 100); });
  } else if (fresh) {
    // A few (a page's first look, a dialog that opened): measuring them
    // now costs less than the frame their report would wait for.
    for (const c of raw) if (!S.geo.has(c.el)) syncGeo(c.el);
  }
  const sx = scrollX, sy = scrollY;
  const cands = [];
  let order = 0;
  for (const c of raw) {
    const el = c.el, tag = c.tag;
    let g = geoOf(el);
    let r = { top: g.top - sy, left: g.left - sx, width: g.w, height: g.h };
    let inView = g.inView, viaLabel = false, checked = false;
    const checkbox = tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
    const file = tag === 'INPUT' && el.type === 'file';
    if (g.w * g.h < 4) {
      // A hidden or tiny native checkbox under a styled label still holds
      // the state and takes the click: keep it, boxed by its label. So is
      // a file input, even one not rendered at all (display:none inside
      // the label styled as its "Upload" button): it takes its files
      // without a click.
      if (!checkbox && !file && g.w * g.h === 0) continue;
      if (checkbox || file) {
        const lr = file || el.checkVisibility({ visibilityProperty: true }) ? visibleLabelBox(el) : null;
        if (!lr) continue;
        r = lr; viaLabel = true; checked = true;
        inView = lr.bottom > 0 && lr.right > 0 && lr.top < vh && lr.left < vw;
      }
    }
    const inDlg = dlg ? composedContains(dlg, el) : false;
    c.r = r; c.inView = inView; c.inDlg = inDlg; c.viaLabel = viaLabel; c.checked = checked; c.order = order++;
    cands.push(c);
  }
  let [blocked, inside] = modal ? markBlocked(modal, cands, vw, vh) : [0, 0];
  if (modal && (!blocked || !inside) && modal !== dlg0) {
    // A layer over the viewport that hides nothing (an app drawn in one
    // fixed box) is the page itself, not a modal; one with nothing to
    // press (a veil while the page loads) offers no way on, so the page
    // stays in view and an action on it is refused with what covers it.
    blocked = 0;
    for (const c of cands) c.blocked = false;
    dlg = dlg0;
    for (const c of cands) c.inDlg = dlg ? composedContains(dlg, c.el) : false;
    modal = null;
  }

  // A query searches every candidate, in view or not: the best
  // matches of each rank group come first.
  let pool = cands;
  // Controls a person cannot reach while the modal is open are not
  // offered, unless a query asks for them (then they rank last, marked).
  // They still count as the page's candidates (Go's Compact says why
  // they are not listed).
  const unlisted = blocked && !query && !o.all ? blocked : 0;
  if (unlisted) pool = cands.filter((c) => !c.blocked);
  // The refs the agent has already been given of controls now behind
  // the modal, so a diff says they are out of reach, not gone (bounded:
  // a long page behind a dialog is counted, not listed).
  const behind = [];
  if (blocked) for (const c of cands) if (c.blocked && S.refs.has(c.el) && behind.length < 200) behind.push(S.refs.get(c.el));
  if (query) {
    const cache = new Map();
    pool = cands.filter((c) => (c.score = matchScore(c, query, cache)) > 0);
    pool.sort((a, b) => b.score - a.score || a.order - b.order);
  }
  const dist = (c) => (c.r.top >= vh ? c.r.top - vh : c.r.top + c.r.height <= 0 ? -(c.r.top + c.r.height) : 0) + (c.r.left >= vw ? c.r.left - vw : c.r.left + c.r.width <= 0 ? -(c.r.left + c.r.width) : 0);
  const group = (c) => (c.blocked ? 3 : c.inDlg ? 0 : c.inView ? 1 : 2);
  // Only the selected few are sorted fully; everything else is counted.
  let chosen;
  let dropped = 0;
  if (o.all) {
    chosen = [];
    for (const c of pool) { if (c.checked || visibleOK(c)) chosen.push(c); else dropped++; if (chosen.length >= limit) break; }
  } else {
    // Style checks (visibility, opacity) run only on the controls about
    // to be chosen; hidden ones are dropped from the count as found.
    const g0 = [], g1 = [], g2 = [], g3 = [];
    for (const c of pool) (c.blocked ? g3 : c.inDlg ? g0 : c.inView ? g1 : g2).push(c);
    chosen = [];
    const take = (list) => {
      for (const c of list) {
        if (chosen.length >= limit) return;
        if (c.checked || visibleOK(c)) chosen.push(c); else dropped++;
      }
    };
    take(g0);
    take(g1);
    if (chosen.length < limit) {
      g2.sort((a, b) => (b.score || 0) - (a.score || 0) || dist(a) - dist(b) || a.order - b.order);
      take(g2);
    }
    if (chosen.length < limit) take(g3);
  }
  chosen.sort((a, b) => group(a) - group(b) || (b.score || 0) - (a.score || 0) || (group(a) === 2 ? dist(a) - dist(b) : 0) || a.order - b.order);
  for (const c of chosen) {
    if (!c.viaLabel) {
      const b = c.el.getBoundingClientRect();
      c.r = { top: b.top, left: b.left, width: b.width, height: b.height };
    }
  }

  const pos = positioner();
  const orphans = orphanIndex();
  const act = deepActive();
  // Refs count on from the larger of the caller's next and this
  // document's own: a look the page took itself (firstlook.js) may have
  // handed out refs the caller has not heard of.
  const ctx = { pos, orphans: orphans.size ? orphans : null, act, next: Math.max(o.nextRef || 1, S.nextRef || 1) };
  const controls = chosen.map((c) => describeControl(c, ctx));
  // A query's passages: the page's text that matches, with the controls
  // near each (the first three inside its block or row); those not
  // already listed come as near controls, so their refs work.
  let passages = [];
  const near = [];
  if (query && !o.within && o.passages !== false) {
    const byEl = new Map(cands.map((c) => [c.el, c]));
    const listed = new Map(chosen.map((c, i) => [c.el, controls[i].ref]));
    for (const p of passagesOf(query, document.body)) {
      const refs = [];
      walk(p.el, (el) => {
        const c = refs.length < 3 && byEl.get(el);
        if (!c || c.blocked) return;
        let ref = listed.get(el);
        if (!ref) {
          if (!c.checked && !visibleOK(c)) return;
          if (!c.viaLabel) c.r = c.el.getBoundingClientRect();
          const ctl = describeControl(c, ctx);
          ctl.near = true;
          near.push(ctl);
          ref = ctl.ref;
          listed.set(el, ref);
        }
        refs.push(ref);
      });
      const pt = refs.length ? null : pointerItem(p.el);
      if (pt) {
        // A row drawn to be clicked with no control in it (a list of
        // divs that take clicks through listeners) is the control.
        const ctl = describeControl(pt, ctx);
        ctl.near = true;
        near.push(ctl);
        listed.set(pt.el, ctl.ref);
        refs.push(ctl.ref);
      }
      passages.push({ text: p.text, refs });
    }
  }
  let next = ctx.next;
  // The open dialog gets a ref too, so a caller can observe within it.
  let dialogRef = '';
  if (dlg && !o.within) {
    [dialogRef, next] = refFor(dlg, keysOf(dlg, dlg.tagName, 'dialog', nameOf(dlg, dlg.tagName, 'dialog'), pos), next, orphans.size ? orphans : null);
  }
  S.nextRef = next;
  // Hand back only live entries so the map cannot grow without bound.
  if (S.byRef.size > 4 * (controls.length + 500)) {
    for (const [r, e] of S.byRef) { const el = e.w.deref(); if (!el || !el.isConnected) S.byRef.delete(r); }
  }
  // The text: what is in view (a query's result has its passages
  // instead), or a look within one element's whole text.
  let text = '', textCut = false, above = 0, below = 0;
  const tmax = o.textMax === undefined ? 600 : o.textMax;
  if (tmax > 0 && !query && document.body) {
    ({ text, textCut, above, below } = viewText(o.within ? root : null, tmax, o.view || null));
  }
  return {
    url: location.href, title: document.title, vw, vh, sx: scrollX, sy: scrollY,
    dialog: dlg ? dialogName(dlg, dlg !== dlg0) : '', dialogRef, blocked, behind,
    candidates: pool.length - dropped + unlisted, controls, near, passages, headings: heads, text, textCut, above, below, nextRef: next,
    walkMs: performance.now() - t0,
  };
}

// describeControl is what the Go side gets of a chosen control: its ref
// (kept per element, so a re-rendered one keeps it), role, name, value,
// box and states. ctx carries the ref counter and the lookups the refs
// need.
function describeControl(c, ctx) {
  const el = c.el;
  const name = c.name !== undefined ? c.name : nameOf(el, c.tag, c.role);
  const keys = keysOf(el, c.tag, c.role, name, ctx.pos);
  let ref;
  [ref, ctx.next] = refFor(el, keys, ctx.next, ctx.orphans);
  const sens = sensitive(el, c.tag);
  const ctl = {
    ref, role: c.role, name: clip(name, 80),
    value: valueOf(el, c.tag, c.role, sens),
    box: [Math.round(c.r.left), Math.round(c.r.top), Math.round(c.r.width), Math.round(c.r.height)],
    inView: c.inView,
  };
  if (c.inDlg) ctl.inDialog = true;
  if (c.blocked) ctl.blocked = true;
  if (sens) ctl.sensitive = true;
  if (c.tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) ctl.checked = el.indeterminate ? 'mixed' : String(el.checked);
  else if (el.hasAttribute('aria-checked')) ctl.checked = el.getAttribute('aria-checked');
  else if (el.hasAttribute('aria-pressed')) ctl.checked = el.getAttribute('aria-pressed');
  if (el.hasAttribute('aria-expanded')) ctl.expanded = el.getAttribute('aria-expanded');
  if (el.getAttribute('aria-selected') === 'true' || (c.tag === 'OPTION' && el.selected)) ctl.selected = true;
  if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true' || el.closest('[inert]')) ctl.disabled = true;
  if (ctx.act === el) ctl.focused = true;
  if (c.tag === 'SELECT') ctl.options = Array.from(el.options).slice(0, 12).map((x) => clip(squash(x.textContent), 40));
  if (c.tag === 'A') {
    // A link into another tab or window: its request is the new tab's,
    // outside this tab's request guard, so the caller checks the whole
    // destination before the click.
    const tg = el.getAttribute('target') || (document.querySelector('base[target]') || {}).target || '';
    if (tg && !/^_(self|top|parent)$/i.test(tg) && el.href) ctl.newTab = true;
    ctl.href = ctl.newTab ? el.href : clip(el.getAttribute('href') || '', 120);
  }
  // The form a control submits names what it commits ("delete-account",
  // "/checkout/pay"), which the button's own name often does not.
  const form = el.form || (el.closest && el.closest('form'));
  if (form) {
    const fd = form.getAttribute('aria-label') || form.getAttribute('name') || form.id || form.getAttribute('action') || '';
    if (fd) ctl.form = clip(squash(fd), 80);
  }
  return ctl;
}

// pointerItem is el as a candidate when the page draws it as something
// to click (the pointer cursor, which component libraries set on their
// rows) though nothing marks it a control; null otherwise, or when it
// is not shown. Only a query's passages are judged so: a style check
// per element of the page would cost every look.
function pointerItem(el) {
  if (!el || el === document.body || el.nodeType !== 1 || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return null;
  if (getComputedStyle(el).cursor !== 'pointer') return null;
  const g = syncGeo(el);
  if (g.w * g.h < 4) return null;
  const b = el.getBoundingClientRect();
  return { el, tag: el.tagName, role: 'generic', r: { top: b.top, left: b.left, width: b.width, height: b.height }, inView: g.inView };
}
