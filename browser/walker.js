// The in-page half of the browser package. It runs in an isolated world of
// each frame, so page scripts can neither see nor tamper with it, and it
// keeps refs in a WeakMap instead of stamping attributes: observing a page
// never mutates its DOM (no MutationObserver or attributeChangedCallback
// fires because we looked).
(() => {
  if (globalThis.__vroom) return;

  const ROLE_BY_TAG = {
    A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox',
    SUMMARY: 'button', OPTION: 'option', H1: 'heading', H2: 'heading',
    H3: 'heading', DIALOG: 'dialog', IMG: 'img',
  };
  const INPUT_ROLE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
    search: 'searchbox', file: 'button', color: 'button',
  };
  // Roles that make an element a control an agent can act on.
  const CONTROL_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'listbox',
    'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'gridcell',
  ]);
  const NO_CONTENT_NAME = new Set(['listbox', 'textbox', 'searchbox', 'combobox', 'dialog', 'alertdialog', 'grid', 'tree', 'menu', 'tablist', 'slider', 'spinbutton']);
  const NAMING_TAGS = new Set(['LABEL', 'BUTTON', 'A', 'OPTION', 'SELECT', 'TEXTAREA', 'SUMMARY', 'LEGEND', 'H1', 'H2', 'H3', 'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  const NAMING_ROLES = new Set(['button', 'option', 'link', 'tab', 'menuitem', 'checkbox', 'radio', 'switch']);
  const SENSITIVE_AC = /(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)/i;
  const SENSITIVE_NAME = /(pass(word|wd)?|pwd|card.?(num|no)|cc.?(num|no)|cvv|cvc|csc|security.?code|otp|one.?time|\bpin\b|2fa|totp)/i;

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
  };
  // Counting trusted presses, and keeping what the last one hit, tells a
  // click that reached its target in this frame from one Chromium
  // acknowledged without delivering, or delivered to the wrong point (an
  // out-of-process frame whose hit-test data is not ready, or lags a layout
  // shift of its parent).
  addEventListener('mousedown', (e) => { if (e.isTrusted) { S.downs++; S.downAt = new WeakRef(e.composedPath()[0] || e.target); } }, true);
  new MutationObserver((list) => {
    S.muts += list.length;
    S.lastMut = performance.now();
    for (const f of S.onMut) f();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });

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
  const NO_NET = { inflight: 0, reqs: 0, timers: 0, open: false };
  const netState = () => {
    const n = net('q');
    return n && typeof n === 'object' ? n : NO_NET;
  };

  function roleOf(el, tag) {
    const r = el.getAttribute('role');
    if (r) return r.split(' ')[0];
    if (tag === 'INPUT') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      if (t === 'hidden') return '';
      if (el.hasAttribute('list')) return 'combobox';
      return INPUT_ROLE[t] || 'textbox';
    }
    if (tag === 'A') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'SELECT') return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    if (tag === 'H4' || tag === 'H5' || tag === 'H6') return 'heading';
    const r2 = ROLE_BY_TAG[tag];
    if (r2) return r2;
    if (el.isContentEditable && el.getAttribute('contenteditable') !== null) return 'textbox';
    return '';
  }

  // isCandidate is the cheap first filter: tag and attributes only, no
  // style or layout, so wide pages are rejected fast.
  function candidateRole(el, tag) {
    const role = roleOf(el, tag);
    if (CONTROL_ROLES.has(role)) return role;
    if (tag === 'LABEL' || tag === 'DIV' || tag === 'SPAN' || tag === 'LI' || tag === 'TD' || tag === 'CANVAS' || tag === 'IMG') {
      if (el.hasAttribute('onclick')) return role || 'button';
      const ti = el.getAttribute('tabindex');
      if (ti !== null && +ti >= 0) return role || (tag === 'CANVAS' ? 'canvas' : 'generic');
    }
    return '';
  }

  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();

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
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (let n = el; n; n = parentOf(n)) {
      const s = n === el ? cs : getComputedStyle(n);
      if (s.backgroundImage && s.backgroundImage !== 'none') return '';
      const b = rgba(s.backgroundColor);
      if (b && b.a > 0.5) { bg = b; break; }
    }
    const l1 = luminance(fg), l2 = luminance(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    return ratio < 1.3 ? 'same colour as its background' : '';
  }

  // seenText is the text of el a person sees, for its name: hidden text
  // and aria-hidden content left out (the accessible name leaves the
  // latter out too). clippedOut collects visually-hidden text, the name of
  // an icon-only control.
  function seenText(el, clippedOut) {
    if (!el.firstElementChild) return squash(el.textContent);
    let t = '';
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 3) return NodeFilter.FILTER_ACCEPT;
        const tag = n.tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || n.getAttribute('aria-hidden') === 'true') return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_SKIP;
      },
    });
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      const p = n.parentElement;
      if (!p) continue;
      const how = p === el ? '' : hiddenHow(p);
      if (!how) t += n.data;
      else if (how === 'clipped' && clippedOut) clippedOut.push(n.data);
    }
    return squash(t);
  }

  function textOf(el) {
    const clipped = [];
    let t = seenText(el, clipped);
    if (!t && clipped.length) {
      // An icon's visually-hidden label names it; a sentence there is no
      // label, so it is marked as text nobody sees.
      t = squash(clipped.join(' '));
      if (t.split(' ').length > 4) t = '[hidden] ' + clip(t, 40);
    }
    if (!t) {
      const img = el.querySelector && el.querySelector('img[alt],[aria-label]');
      if (img) t = squash(img.getAttribute('alt') || img.getAttribute('aria-label'));
    }
    return t;
  }

  function byIdText(el, ids) {
    const root = el.getRootNode();
    return squash(ids.split(/\s+/).map((id) => {
      const n = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      return n ? (n.getAttribute('aria-label') || n.textContent) : '';
    }).join(' '));
  }

  // labelled returns an aria-label(ledby) name unless it contradicts the
  // text a person sees on the control (a label that does not contain a
  // visible text of a few letters): then the visible text is the name.
  function labelled(el, tag, role, label) {
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IMG' || NO_CONTENT_NAME.has(role)) return label;
    const seen = seenText(el, null);
    if (seen.replace(/[^\p{L}\p{N}]/gu, '').length < 3) return label;
    return label.toLowerCase().includes(seen.toLowerCase()) ? label : seen;
  }

  function nameOf(el, tag, role) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) { const t = byIdText(el, lb); if (t) return labelled(el, tag, role, t); }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return labelled(el, tag, role, squash(al));
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') {
      const type = (el.type || '').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset') return squash(el.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (type === 'image') return squash(el.alt || el.value || 'Submit');
      if (el.labels && el.labels.length) {
        const parts = [];
        for (const l of el.labels) {
          // A label that wraps the control would repeat its value.
          let t = '';
          for (const n of l.childNodes) {
            if (n.nodeType === 3) t += n.textContent;
            else if (n !== el && n.nodeType === 1 && !n.contains(el) && n.tagName !== 'SELECT' && n.tagName !== 'INPUT' && n.tagName !== 'TEXTAREA') t += ' ' + n.textContent;
            else if (n.nodeType === 1 && n !== el && n.contains(el)) t += ' ' + n.textContent;
          }
          parts.push(squash(t));
        }
        const t = squash(parts.join(' '));
        if (t) return t;
      }
      return squash(el.getAttribute('title') || el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || el.getAttribute('name') || '');
    }
    if (tag === 'IMG') return squash(el.alt || el.title);
    // Containers and fields are not named by their content.
    if (NO_CONTENT_NAME.has(role)) return squash(el.getAttribute('title') || el.getAttribute('aria-placeholder') || el.getAttribute('placeholder') || '');
    const t = textOf(el);
    if (t) return t;
    return squash(el.getAttribute('title') || el.getAttribute('aria-placeholder') || '');
  }

  function sensitive(el, tag) {
    if (tag !== 'INPUT' && tag !== 'TEXTAREA') return false;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'password') return true;
    if (SENSITIVE_AC.test(el.getAttribute('autocomplete') || '')) return true;
    if (type && type !== 'text' && type !== 'tel' && type !== 'number' && type !== 'search') return false;
    return SENSITIVE_NAME.test((el.getAttribute('name') || '') + ' ' + (el.id || '') + ' ' + (el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('placeholder') || ''));
  }

  function valueOf(el, tag, role, sens) {
    let v = '';
    if (tag === 'INPUT') {
      const type = (el.type || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio' || type === 'submit' || type === 'button' || type === 'reset' || type === 'image') return '';
      if (type === 'file') v = Array.from(el.files || []).map((f) => f.name).join(', ');
      else v = el.value;
    } else if (tag === 'TEXTAREA') v = el.value;
    else if (tag === 'SELECT') v = Array.from(el.selectedOptions || []).map((o) => squash(o.textContent)).join(', ');
    else if (role === 'textbox' || role === 'searchbox') v = squash(el.textContent);
    else if (role === 'combobox') v = squash(el.getAttribute('aria-valuetext') || el.getAttribute('data-value') || '');
    else if (role === 'slider' || role === 'spinbutton') v = squash(el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '');
    if (sens && v) return '***';
    return clip(v || '', 80);
  }

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

  function activeDialog() {
    // The topmost open dialog: a modal <dialog>, else an aria-modal one,
    // else the last visible dialog in document order.
    let best = null; let bestRank = -1;
    for (const d of document.querySelectorAll('dialog[open],[role=dialog],[role=alertdialog]')) {
      if (!d.checkVisibility({ visibilityProperty: true })) continue;
      const r = d.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      let rank = 1;
      if (d.tagName === 'DIALOG' && d.matches(':modal')) rank = 3;
      else if (d.getAttribute('aria-modal') === 'true') rank = 2;
      if (rank >= bestRank) { best = d; bestRank = rank; }
    }
    return best;
  }

  // modalLayer is what blocks the page behind it, or null: a modal
  // <dialog> (showModal), a dialog marked aria-modal, or a backdrop over
  // the viewport: the outermost overlaid layer (overlaid) at the
  // viewport's centre, covering 90% of it and hit at its four corners too
  // (a newsletter popup's backdrop, a dialog's overlay, with or without a
  // role). Five hit tests: cheap next to the walk.
  function modalLayer(dlg) {
    if (dlg && ((dlg.tagName === 'DIALOG' && dlg.matches(':modal')) || dlg.getAttribute('aria-modal') === 'true')) return dlg;
    const vw = document.documentElement.clientWidth || innerWidth, vh = document.documentElement.clientHeight || innerHeight;
    if (vw < 32 || vh < 32) return null;
    let L = null;
    for (let n = hitAt(vw / 2, vh / 2); n && n.nodeType === 1 && n !== document.body && n !== document.documentElement; n = parentOf(n)) {
      if (overlaid(n)) L = n;
    }
    if (!L) return null;
    const r = L.getBoundingClientRect();
    if (r.width < vw * 0.9 || r.height < vh * 0.9) return null;
    for (const [x, y] of [[4, 4], [vw - 5, 4], [4, vh - 5], [vw - 5, vh - 5]]) {
      const h = hitAt(x, y);
      if (!h || !composedContains(L, h)) return null;
    }
    return L;
  }

  // markBlocked marks the candidates a person cannot reach while modal is
  // open: outside it, and off-screen or covered at their centre (a
  // suggestion list drawn over the modal from outside it is reachable).
  // Those inside it rank as the dialog's. It returns how many are blocked
  // and how many are inside.
  function markBlocked(modal, cands, vw, vh) {
    let n = 0, inside = 0;
    // A dialog that is another page in an iframe (a consent manager's) has
    // its controls in that frame, walked on its own: it is a way on.
    for (const f of [modal, ...modal.querySelectorAll('iframe')]) {
      if (f.tagName === 'IFRAME' && f.getBoundingClientRect().width > 1) inside++;
    }
    for (const c of cands) {
      if (composedContains(modal, c.el)) { c.inDlg = true; inside++; continue; }
      let ok = false;
      if (c.inView) {
        const x = Math.min(Math.max(c.r.left + c.r.width / 2, 1), vw - 1), y = Math.min(Math.max(c.r.top + c.r.height / 2, 1), vh - 1);
        const h = hitAt(x, y);
        ok = !!h && hits(c.el, h);
      }
      if (!ok) { c.blocked = true; n++; }
    }
    return [n, inside];
  }

  // dialogName names the open dialog; a backdrop without a role (layer)
  // by its heading or first words.
  function dialogName(dlg, layer) {
    const nm = clip(nameOf(dlg, dlg.tagName, 'dialog'), 80);
    if (nm || !layer) return nm || 'dialog';
    const h = dlg.querySelector('h1,h2,h3');
    return clip((h && squash(h.textContent)) || proseOf(dlg, 80).text, 80) || 'dialog';
  }

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

  // visibleOK applies the style checks (visibility, opacity, display of
  // ancestors); a transparent checkbox passes through its visible label.
  function visibleOK(c) {
    const el = c.el;
    if (el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return true;
    if (c.tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio') && el.checkVisibility({ visibilityProperty: true })) {
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
      S.geo.set(e.target, { inView: e.isIntersecting, top: r.top + scrollY, left: r.left + scrollX, w: r.width, h: r.height });
    }
  }
  S.geo = new WeakMap();
  S.waiters = [];
  S.io = new IntersectionObserver((entries) => {
    noteGeo(entries);
    const w = S.waiters; S.waiters = [];
    for (const f of w) f();
  }, { threshold: 0 });

  function syncGeo(el) {
    const r = el.getBoundingClientRect();
    const g = { inView: r.width + r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth, top: r.top + scrollY, left: r.left + scrollX, w: r.width, h: r.height };
    S.geo.set(el, g);
    return g;
  }

  // Rows, list items, cards and labels: what a person reads as one unit
  // with the controls inside it ("Pro plan  $20  [Choose]").
  const ROWISH = new Set(['TR', 'LI', 'ARTICLE', 'LABEL', 'FIELDSET']);
  const ROWISH_ROLES = new Set(['row', 'listitem', 'option', 'article', 'gridcell', 'group']);

  function parentOf(n) {
    if (n.parentElement) return n.parentElement;
    const r = n.getRootNode();
    return r && r.host ? r.host : null;
  }

  // ownText is a container's text without the text of the controls in it
  // (their names are their own, not their neighbours'), or null past 2,000
  // characters: a section, not a neighbourhood.
  function ownText(root) {
    let t = '';
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 3) return NodeFilter.FILTER_ACCEPT;
        const tag = n.tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || candidateRole(n, tag)) return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_SKIP;
      },
    });
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      t += n.data + ' ';
      if (t.length > 2000) return null;
    }
    return squash(t);
  }

  // nearbyText is the text that belongs to a control without being its
  // name: its aria-describedby text, then the own text (ownText) of the
  // nearest enclosing row, list item, card or label (tr, li, article,
  // label, fieldset, or those roles) within six levels if that holds at
  // most 300 characters, else of the nearest ancestor within three levels
  // that holds any, if at most 200 (a card built of plain divs). Texts
  // are cached per call: a row of 5,000 buttons is read once.
  function nearbyText(el, cache) {
    const text = (n) => {
      let t = cache.get(n);
      if (t === undefined) { t = ownText(n); cache.set(n, t); }
      return t;
    };
    let out = '';
    const db = el.getAttribute('aria-describedby');
    if (db) out = byIdText(el, db);
    let p = parentOf(el);
    for (let i = 0; p && i < 6 && p !== document.body; i++, p = parentOf(p)) {
      const r = p.getAttribute('role');
      if (ROWISH.has(p.tagName) || (r && ROWISH_ROLES.has(r))) {
        const t = text(p);
        if (t !== null && t.length <= 300) return out + ' ' + t;
        break;
      }
    }
    p = parentOf(el);
    for (let i = 0; p && i < 3 && p !== document.body; i++, p = parentOf(p)) {
      const t = text(p);
      if (t === null || t.length > 200) break;
      if (t) return out + ' ' + t;
    }
    return out;
  }

  // matchScore says how a candidate matches a lower-cased query: 4 its
  // name is the query, 3 its name contains it, 2 its value does (never a
  // sensitive field's), 1 its nearby text does; 0 no match. It sets c.name.
  function matchScore(c, query, cache) {
    if (c.name === undefined) c.name = nameOf(c.el, c.tag, c.role);
    const name = c.name.toLowerCase();
    if (name === query) return 4;
    if (name.includes(query) || (c.el.getAttribute('placeholder') || '').toLowerCase().includes(query)) return 3;
    if (!sensitive(c.el, c.tag) && valueOf(c.el, c.tag, c.role, false).toLowerCase().includes(query)) return 2;
    return nearbyText(c.el, cache).toLowerCase().includes(query) ? 1 : 0;
  }

  // queryFind returns the name (or role) of the first visible control
  // matching query, or null: the test of a wait for a control.
  function queryFind(q) {
    const query = squash(q).toLowerCase();
    const cache = new Map();
    let found = null;
    walk(document.documentElement, (el, tag) => {
      if (found !== null) return;
      const role = candidateRole(el, tag);
      if (!role) return;
      const c = { el, tag, role };
      if (!matchScore(c, query, cache)) return;
      const r = el.getBoundingClientRect();
      if (r.width * r.height < 1 || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return;
      found = c.name || role;
    });
    return found;
  }

  // proseOf is the page's visible prose under root, up to tmax characters.
  // Subtrees that name controls (or hold no prose) are skipped whole. The
  // scan stops after a fixed number of nodes: a page of 5,000 buttons has
  // no prose to find and must not cost a full pass to learn that. (A
  // TreeWalker cannot stop: its filter can only reject, so it went on
  // calling the filter for every remaining sibling, 4 ms at 5,000.)
  function proseOf(root, tmax) {
    let text = '', textCut = false, budget = 2000;
    const seen = new Map();
    let n = root.firstChild;
    while (n && --budget >= 0) {
      let descend = false;
      if (n.nodeType === 3) {
        const p = n.parentElement;
        const s = p && p.tagName !== 'SCRIPT' && p.tagName !== 'STYLE' && p.tagName !== 'NOSCRIPT' ? squash(n.data) : '';
        if (s) {
          let vis = seen.get(p);
          if (vis === undefined) { vis = !hiddenHow(p); seen.set(p, vis); }
          if (vis) {
            text += (text ? ' ' : '') + s;
            if (text.length > tmax) { text = text.slice(0, tmax - 1) + '…'; textCut = true; break; }
          }
        }
      } else if (n.nodeType === 1 && !NAMING_TAGS.has(n.tagName)) {
        const r = n.getAttribute('role');
        descend = !(r && NAMING_ROLES.has(r));
      }
      if (descend && n.firstChild) { n = n.firstChild; continue; }
      while (n !== root && !n.nextSibling) n = n.parentNode;
      n = n === root ? null : n.nextSibling;
    }
    return { text, textCut };
  }

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
    if (fresh) {
      // New controls: their first report arrives with the next frame; a
      // page that renders no frames (hidden, busy) gets measured directly.
      await new Promise((res) => { S.waiters.push(res); setTimeout(res, 100); });
    }
    const sx = scrollX, sy = scrollY;
    const cands = [];
    let order = 0;
    for (const c of raw) {
      const el = c.el, tag = c.tag;
      let g = S.geo.get(el) || syncGeo(el);
      let r = { top: g.top - sy, left: g.left - sx, width: g.w, height: g.h };
      let inView = g.inView, viaLabel = false, checked = false;
      const checkbox = tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
      if (g.w * g.h < 4) {
        // A hidden or tiny native checkbox under a styled label still holds
        // the state and takes the click: keep it, boxed by its label.
        if (!checkbox && g.w * g.h === 0) continue;
        if (checkbox) {
          const lr = el.checkVisibility({ visibilityProperty: true }) ? visibleLabelBox(el) : null;
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
    let next = o.nextRef || 1;
    const controls = [];
    for (const c of chosen) {
      const el = c.el;
      const name = c.name !== undefined ? c.name : nameOf(el, c.tag, c.role);
      const keys = keysOf(el, c.tag, c.role, name, pos);
      let ref;
      [ref, next] = refFor(el, keys, next, orphans.size ? orphans : null);
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
      if (act === el) ctl.focused = true;
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
      controls.push(ctl);
    }
    // The open dialog gets a ref too, so a caller can observe within it.
    let dialogRef = '';
    if (dlg && !o.within) {
      [dialogRef, next] = refFor(dlg, keysOf(dlg, dlg.tagName, 'dialog', nameOf(dlg, dlg.tagName, 'dialog'), pos), next, orphans.size ? orphans : null);
    }
    // Hand back only live entries so the map cannot grow without bound.
    if (S.byRef.size > 4 * (controls.length + 500)) {
      for (const [r, e] of S.byRef) { const el = e.w.deref(); if (!el || !el.isConnected) S.byRef.delete(r); }
    }
    let text = '';
    let textCut = false;
    const tmax = o.textMax === undefined ? 600 : o.textMax;
    const textRoot = o.within ? root : document.body;
    if (tmax > 0 && textRoot) {
      ({ text, textCut } = proseOf(textRoot, tmax));
    }
    return {
      url: location.href, title: document.title, vw, vh, sx: scrollX, sy: scrollY,
      dialog: dlg ? dialogName(dlg, dlg !== dlg0) : '', dialogRef, blocked, behind,
      candidates: pool.length - dropped + unlisted, controls, headings: heads, text, textCut, nextRef: next,
      walkMs: performance.now() - t0,
    };
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

  // formState digests every form control's state (value, checked,
  // selection) in the document and its same-origin frames: a script that
  // sets input.value = 2 changes no attribute, so no mutation shows it.
  // A digest, not the values: a password stays in the page.
  function formState() {
    let h = 2166136261, n = 0;
    const mix = (s) => {
      for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
      h ^= 0x1f; h = Math.imul(h, 16777619);
    };
    const docs = [document];
    for (const f of document.getElementsByTagName('iframe')) {
      try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) { /* cross-origin: its own frame's world sees it */ }
    }
    for (const d of docs) {
      for (const el of d.querySelectorAll('input,select,textarea')) {
        n++;
        if (el.tagName === 'SELECT') {
          if (el.multiple) for (const o of el.selectedOptions) mix(String(o.index));
          else mix(String(el.selectedIndex));
        } else if (el.type === 'checkbox' || el.type === 'radio') mix(el.checked ? '1' : el.indeterminate ? 'm' : '0');
        else mix(el.value);
      }
    }
    return n + ':' + (h >>> 0).toString(36);
  }

  // fingerprint is the page's state for the verdict; with open, it also
  // opens the action's network window (netwatch.js), right before the input.
  function fingerprint(ref, open) {
    const a = deepActive();
    const f = { url: location.href, muts: S.muts, downs: S.downs, scroll: scrollX + ',' + scrollY, focus: a ? (S.refs.get(a) || a.tagName + (a.id ? '#' + a.id : '')) : '', form: formState() };
    if (open) net('open');
    if (ref) {
      const el = resolve(ref);
      if (el) {
        f.value = 'value' in el ? String(el.value) : '';
        f.checked = 'checked' in el ? String(el.checked) : (el.getAttribute('aria-checked') || '');
        f.expanded = el.getAttribute('aria-expanded') || '';
      }
    }
    return f;
  }

  // settle resolves once the DOM has been quiet for quietMs after the
  // action, or at maxMs; the host enforces its own deadline on top, since a
  // hung renderer runs no timers at all. With mutsBefore (typing), it
  // settles at once if the DOM has not changed at all since before the
  // input: the verdict rests on the field's value, final at once, and a
  // quiet window would only wait for reactions that never started.
  //
  // With netMs (an action's own settle, no condition), once the DOM is
  // quiet it asks the main world whether the action started requests or
  // short timers (a debounce, a "Processing…" delay before a POST); if so
  // it waits for them, event-driven and for at most netMs from the start,
  // then for the DOM again. Asking is a synchronous event round trip in
  // the page, so an action that started nothing pays nothing for it.
  function settle(quietMs, maxMs, cond, ref, mutsBefore, netMs) {
    const start = performance.now();
    const netOn = netMs > 0 && !cond;
    return new Promise((res0) => {
      let from = start; // quiet counts from here: the start, or the network's end
      let pending = 0;  // requests in flight when a bound was hit
      let wake = null;
      const res = (v) => {
        if (wake) S.onNet.delete(wake);
        if (netMs > 0) net('close');
        v.fp = fingerprint(ref);
        if (pending) v.pending = pending;
        res0(v);
      };
      // waitNet is false when there is nothing (more) to wait for; else
      // it has arranged for tick to run once the network is done.
      const waitNet = (now) => {
        if (!netOn) return false;
        const n = netState();
        if (!n.reqs && !n.timers) return false;
        if (now - start >= netMs) { pending = n.reqs; return false; }
        let bound = 0;
        const resume = () => {
          S.onNet.delete(wake); wake = null; clearTimeout(bound);
          from = performance.now();
          requestAnimationFrame(tick);
        };
        wake = () => { const m = netState(); if (!m.reqs && !m.timers) resume(); };
        S.onNet.add(wake);
        bound = setTimeout(resume, netMs - (now - start));
        return true;
      };
      const tick = () => {
        const now = performance.now();
        if (cond && check(cond)) return res({ settled: true, cond: true });
        if (now - start >= maxMs) {
          if (netOn) pending = netState().reqs;
          return res({ settled: false, cond: cond ? check(cond) : undefined });
        }
        // After a response, a little longer: its body is parsed and
        // rendered in tasks of their own.
        const q = from > start ? Math.max(quietMs, 50) : quietMs;
        if (!cond && now - Math.max(S.lastMut, from) >= q) {
          if (!waitNet(now)) return res({ settled: true });
          return;
        }
        setTimeout(tick, 4);
      };
      // One frame lets rAF-driven renders land before quiet is judged;
      // typing looks first at once (its handlers ran during the input)
      // and waits for the frame only if the DOM moved.
      if (mutsBefore != null && !cond) {
        setTimeout(() => {
          if (S.muts === mutsBefore && !waitNet(performance.now())) return res({ settled: true });
          if (!wake) requestAnimationFrame(tick);
        }, 0);
      } else {
        requestAnimationFrame(tick);
      }
    });
  }

  // waitFor resolves when every condition of c holds, or at maxMs: text
  // (the visible text contains it), gone (it no longer does), url (the
  // URL contains it), query (a visible control matches it, as observe's
  // query), idle (no request in flight, the document loaded, the DOM quiet
  // for 500 ms). Text and URL compare case-insensitively, whitespace
  // squashed. It re-checks when the DOM or the network changes, at most
  // every 50 ms, and every 500 ms regardless (a URL set by pushState, a
  // style that shows text), never busier.
  function waitFor(c, maxMs) {
    const start = performance.now();
    const low = (x) => squash(x).toLowerCase();
    return new Promise((resolve) => {
      let timer = 0, at = Infinity, last = -Infinity;
      const evaluate = () => {
        const now = performance.now();
        const parts = {};
        let text = null;
        const page = () => (text !== null ? text : (text = low(document.body ? document.body.innerText : '')));
        if (c.text) parts.text = page().includes(low(c.text));
        if (c.gone) parts.gone = !page().includes(low(c.gone));
        if (c.url) parts.url = location.href.toLowerCase().includes(c.url.toLowerCase());
        let found = null;
        if (c.query) { found = queryFind(c.query); parts.query = found !== null; }
        const n = netState();
        let next = 500;
        if (c.idle) {
          const quiet = now - Math.max(S.lastMut, S.installed);
          parts.idle = n.inflight === 0 && document.readyState === 'complete' && quiet >= 500;
          if (!parts.idle && n.inflight === 0) next = Math.max(1, 500 - quiet);
        }
        const met = Object.values(parts).every(Boolean);
        return { met, parts, found, pending: n.inflight, next };
      };
      const arm = (delay) => {
        const when = performance.now() + delay;
        if (timer && at <= when) return;
        clearTimeout(timer);
        at = when;
        timer = setTimeout(run, delay);
      };
      const poke = () => arm(Math.max(0, last + 50 - performance.now()));
      const finish = (r) => {
        clearTimeout(timer);
        S.onMut.delete(poke);
        S.onNet.delete(poke);
        document.removeEventListener('readystatechange', poke);
        net('watch', false);
        delete r.next;
        resolve(r);
      };
      function run() {
        timer = 0; at = Infinity;
        last = performance.now();
        const r = evaluate();
        const left = maxMs - (last - start);
        if (r.met || left <= 0) return finish(r);
        arm(Math.min(r.next, left));
      }
      S.onMut.add(poke);
      S.onNet.add(poke);
      document.addEventListener('readystatechange', poke);
      net('watch', true);
      run();
    });
  }

  function check(c) {
    if (c.text) {
      const t = document.body ? document.body.innerText : '';
      if (!t.includes(c.text)) return false;
    }
    if (c.url && !location.href.includes(c.url)) return false;
    if (c.ref) {
      const el = resolve(c.ref);
      if (!el) return c.gone === true;
      if (c.gone) return false;
      if (c.value !== undefined && String(el.value) !== c.value) return false;
      if (c.checked !== undefined && String(el.checked) !== String(c.checked)) return false;
    }
    return true;
  }

  // focusAll focuses a text field and selects its content.
  function focusAll(el) {
    el.focus();
    if ('select' in el && typeof el.select === 'function') el.select();
    else {
      const sel = getSelection();
      const rng = document.createRange();
      rng.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(rng);
    }
  }

  function focusedInfo() {
    const a = deepActive();
    if (!a || a === document.body || a === document.documentElement) return { none: true };
    return { editable: isEditable(a), tag: a.tagName };
  }

  function selectNative(ref, option) {
    const el = resolve(ref);
    if (!el) return { err: 'gone' };
    if (el.tagName !== 'SELECT') return { custom: true, expanded: el.getAttribute('aria-expanded'), controls: el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '' };
    if (el.disabled) return { err: 'disabled' };
    const want = option.toLowerCase();
    const opts = Array.from(el.options);
    let o = opts.find((x) => squash(x.textContent).toLowerCase() === want || x.value.toLowerCase() === want);
    if (!o) o = opts.find((x) => squash(x.textContent).toLowerCase().includes(want));
    if (!o) return { err: 'no option', options: opts.slice(0, 20).map((x) => squash(x.textContent)) };
    if (o.disabled) return { err: 'option disabled' };
    el.focus();
    el.value = o.value;
    o.selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, chosen: squash(o.textContent) };
  }

  // findOption looks for a visible role=option for a custom listbox,
  // preferring the listbox that the combobox controls.
  function findOption(ref, option, next) {
    const el = resolve(ref);
    const want = option.toLowerCase();
    let scope = document;
    if (el) {
      const id = el.getAttribute('aria-controls') || el.getAttribute('aria-owns');
      const lb = id ? el.getRootNode().getElementById(id) : null;
      if (lb) scope = lb;
    }
    let found = null; let partial = null;
    const pos = positioner();
    walk(scope === document ? document.documentElement : scope, (n, tag) => {
      if (found) return;
      if (roleOf(n, tag) !== 'option' || tag === 'OPTION') return;
      if (!n.checkVisibility({ visibilityProperty: true })) return;
      const nm = nameOf(n, tag, 'option').toLowerCase();
      if (nm === want) found = n;
      else if (!partial && nm.includes(want)) partial = n;
    });
    const o = found || partial;
    if (!o) return { err: 'no option' };
    const keys = keysOf(o, o.tagName, 'option', nameOf(o, o.tagName, 'option'), pos);
    const [r, n2] = refFor(o, keys, next, null);
    return { ref: r, nextRef: n2 };
  }

  function scrollInfo() {
    return { sx: scrollX, sy: scrollY, vw: innerWidth, vh: innerHeight };
  }

  // frameBox is where an iframe's viewport lies in its document; with
  // within (a ref), whether the iframe lies inside that element.
  function frameBox(el, within) {
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

  Object.defineProperty(globalThis, '__vroom', {
    value: { observe, resolve, prepare, recheck, fingerprint, settle, waitFor, check, focusedInfo, selectNative, findOption, scrollInfo, frameBox, muts: () => S.muts, downs: () => S.downs, downOn: (ref) => { const el = resolve(ref), d = S.downAt && S.downAt.deref(); return !!(el && d && (d === el || composedContains(el, d))); }, frame: () => new Promise((r) => requestAnimationFrame(() => r(true))) },
  });
})();
