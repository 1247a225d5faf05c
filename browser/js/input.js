// Input helpers: focusing and selecting a field's content, the focused
// element, native selects and custom listboxes' options.

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

// With before, the answer carries the page's state from before the
// choice (fingerprint, opening the action's network window), so the
// choice takes one call.
function selectNative(ref, option, before, then) {
  const fp = before ? fingerprint(ref, true) : undefined;
  const el = resolve(ref);
  if (!el) return { err: 'gone', fp };
  if (el.tagName !== 'SELECT') return { custom: true, expanded: el.getAttribute('aria-expanded'), controls: el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '', fp };
  if (el.disabled) return { err: 'disabled', fp };
  const want = option.toLowerCase();
  const opts = Array.from(el.options);
  let o = opts.find((x) => squash(x.textContent).toLowerCase() === want || x.value.toLowerCase() === want);
  if (!o) o = opts.find((x) => squash(x.textContent).toLowerCase().includes(want));
  if (!o) return { err: 'no option', options: opts.slice(0, 20).map((x) => squash(x.textContent)), fp };
  if (o.disabled) return { err: 'option disabled', fp };
  el.focus();
  el.value = o.value;
  o.selected = true;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  const res = { ok: true, chosen: squash(o.textContent), fp };
  return then ? settledChoice(ref, res, then) : res;
}

// settledChoice settles a native choice in the call that made it, with
// then (the settle's function and arguments), when once the handlers'
// microtasks have run the choice started nothing the page still owes: the
// settle would end at once, a round trip later. Otherwise the choice is
// answered alone and settled in a call of its own, which a navigation it
// started may end.
//
// The handlers' microtasks run ahead of ours: each await lets a chain of
// them (a framework's scheduled render, a then of a then) go one link
// further. A task would wait for all of them, but behind the renderer's
// next frame, which a DevTools call does not.
async function settledChoice(ref, res, then) {
  for (let i = 0; i < CHOICE_TICKS; i++) await null;
  if (!settledAtOnce(ref)) return res;
  res.st = await (then.fn === 'settleLook' ? settleLook(...then.args) : settle(...then.args));
  return res;
}

// CHOICE_TICKS is how many links of a microtask chain a choice's
// handlers may start before its effect shows: an async handler's await
// of an async helper takes three.
const CHOICE_TICKS = 48;

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

// fileInputOf is the file input an upload on ref sets: the element
// itself, or, for the label or zone a page draws as its "Upload" button
// (a label, a button holding the one hidden input, a part of a label),
// the file input it stands for. Anything else is itself, and the upload
// says what it is.
function fileInputOf(ref) {
  const el = resolve(ref);
  if (!el || el.tagName === 'INPUT') return el;
  const isFile = (x) => !!x && x.tagName === 'INPUT' && x.type === 'file';
  if (el.tagName === 'LABEL' && isFile(el.control)) return el.control;
  const inner = el.querySelectorAll('input[type=file]');
  if (inner.length === 1) return inner[0];
  const lab = el.closest('label');
  return lab && isFile(lab.control) ? lab.control : el;
}
