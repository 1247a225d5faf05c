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
function selectNative(ref, option, before) {
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
  return { ok: true, chosen: squash(o.textContent), fp };
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
