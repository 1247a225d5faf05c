// Names and values: the text a control is known by (as a person sees it,
// its labels, its ARIA attributes) and the value it holds, masked when the
// field is sensitive.

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

// fileValue says what a file input takes and holds, as its value: the
// accepted types, how many files, the names chosen.
function fileValue(el) {
  const acc = (el.getAttribute('accept') || '').split(',').map((a) => a.trim()).filter(Boolean).join(' ');
  // The names as chosen, the first three of many with the count: the
  // value stays one short line whatever was chosen.
  const names = Array.from(el.files || []).map((f) => clip(f.name, 40));
  const held = !names.length ? 'no file chosen'
    : names.length <= 3 ? 'chosen: ' + names.join(', ')
      : 'chosen ' + names.length + ' files: ' + names.slice(0, 3).join(', ') + ', …';
  return clip((acc ? 'accepts ' + acc + ', ' : '') + (el.multiple ? 'several files' : 'one file') + '; ' + held, 120);
}

function valueOf(el, tag, role, sens) {
  let v = '';
  if (tag === 'INPUT') {
    const type = (el.type || '').toLowerCase();
    if (type === 'checkbox' || type === 'radio' || type === 'submit' || type === 'button' || type === 'reset' || type === 'image') return '';
    if (type === 'file') return fileValue(el);
    else v = el.value;
  } else if (tag === 'TEXTAREA') v = el.value;
  else if (tag === 'SELECT') v = Array.from(el.selectedOptions || []).map((o) => squash(o.textContent)).join(', ');
  else if (role === 'textbox' || role === 'searchbox') v = squash(el.textContent);
  else if (role === 'combobox') v = squash(el.getAttribute('aria-valuetext') || el.getAttribute('data-value') || '');
  else if (role === 'slider' || role === 'spinbutton') v = squash(el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '');
  if (sens && v) return '***';
  return clip(v || '', 80);
}
