// Refs: the short names (e17) an observation gives controls, kept in a
// WeakMap with each control's identity, so a control a framework replaced
// is found again by what it was.

// Per-observation index of each parent's children by tag, so a control's
// nth-of-type position is found without rescanning its earlier siblings
// (the quadratic trap on a row of 5,000 buttons).
function positioner() {
  const idx = new Map();
  return (el) => {
    const p = el.parentNode;
    if (!p) return 1;
    let st = idx.get(p);
    if (!st) {
      st = { pos: new Map(), next: p.firstElementChild, counts: {} };
      idx.set(p, st);
    }
    // The scan moves forward only as far as the furthest child asked
    // for, so the first controls of a 5,000-wide row cost a few steps.
    while (!st.pos.has(el) && st.next) {
      const c = st.next;
      const k = c.tagName;
      st.counts[k] = (st.counts[k] || 0) + 1;
      st.pos.set(c, st.counts[k]);
      st.next = c.nextElementSibling;
    }
    return st.pos.get(el) || 1;
  };
}

function pathOf(el, pos) {
  const parts = [];
  for (let n = el, depth = 0; n && n.nodeType === 1 && depth < 12; depth++) {
    parts.push(n.tagName.toLowerCase() + ':' + pos(n));
    if (n.parentElement) n = n.parentElement;
    else { const r = n.getRootNode(); n = r && r.host ? r.host : null; if (n) parts.push('#shadow'); }
  }
  return parts.reverse().join('/');
}

// keysOf is the recovery identity, strongest first.
function keysOf(el, tag, role, name, pos) {
  const k = [];
  if (el.id) k.push('id:' + tag + '#' + el.id);
  const nm = el.getAttribute('name');
  if (nm) k.push('name:' + tag + ':' + nm + ((el.type === 'radio' || el.type === 'checkbox') ? '=' + el.value : ''));
  if (tag === 'A' && el.getAttribute('href')) k.push('href:' + el.getAttribute('href') + '|' + name);
  const al = el.getAttribute('aria-label') || el.getAttribute('aria-controls') || el.getAttribute('data-testid');
  if (al) k.push('aria:' + role + ':' + al);
  if (name) k.push('rn:' + role + ':' + name);
  k.push('pos:' + pathOf(el, pos));
  return k;
}

function orphanIndex() {
  const idx = new Map();
  for (const [ref, e] of S.byRef) {
    const el = e.w.deref();
    if (el && el.isConnected) continue;
    for (const key of e.keys) {
      const prev = idx.get(key);
      // A key that several orphans share identifies none of them.
      idx.set(key, prev === undefined ? ref : null);
    }
  }
  return idx;
}

function refFor(el, keys, next, orphans) {
  let ref = S.refs.get(el);
  if (ref) {
    const e = S.byRef.get(ref);
    if (e && e.w.deref() === el) { e.keys = keys; return [ref, next]; }
  }
  if (orphans) {
    for (const key of keys) {
      const r = orphans.get(key);
      if (r) {
        orphans.delete(key);
        for (const [k2, v2] of orphans) if (v2 === r) orphans.delete(k2);
        S.refs.set(el, r);
        S.byRef.set(r, { w: new WeakRef(el), keys });
        return [r, next];
      }
    }
  }
  ref = 'e' + next;
  S.refs.set(el, ref);
  S.byRef.set(ref, { w: new WeakRef(el), keys });
  return [ref, next + 1];
}

// resolve finds the element for a ref, recovering it by identity when a
// framework has replaced the original node.
function resolve(ref) {
  const e = S.byRef.get(ref);
  if (!e) return null;
  const el = e.w.deref();
  if (el && el.isConnected) return el;
  const pos = positioner();
  const want = new Set(e.keys);
  let best = null; let bestScore = -1;
  walk(document.documentElement, (n, tag) => {
    const role = candidateRole(n, tag);
    if (!role) return;
    const keys = keysOf(n, tag, role, nameOf(n, tag, role), pos);
    for (let i = 0; i < keys.length; i++) {
      if (want.has(keys[i])) {
        const score = 100 - i * 10 - e.keys.indexOf(keys[i]) * 10;
        if (score > bestScore && !S.refs.has(n) || (score > bestScore && S.refs.get(n) === ref)) { best = n; bestScore = score; }
        break;
      }
    }
  });
  if (best) {
    S.refs.set(best, ref);
    e.w = new WeakRef(best);
  }
  return best;
}
