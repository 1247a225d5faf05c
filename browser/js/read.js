// Reading a page as a person reads it: its blocks in document order —
// headings (#), paragraphs, list items (-, 1.), table rows with their
// cells between | — one a line, the words of links and buttons in place,
// hidden text left out (hiddenHow), shadow DOM through its slots, and an
// iframe as a marker line (\u0001frame id\u0001) that the Go side
// replaces with that frame's own reading. One reader serves three uses:
// the observation's text (what is in view, without the lines that only
// name controls, which the control list holds), read_page's whole text,
// and the passages a query matches.

const READ_SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE', 'TEXTAREA', 'INPUT', 'SELECT', 'OPTION', 'DATALIST', 'OBJECT', 'EMBED', 'CANVAS', 'VIDEO', 'AUDIO', 'MAP', 'IMG', 'svg']);
const CONTROL_SEL = 'a[href],button,input,select,textarea,[role=button],[role=link],[onclick]';
const ROW_GROUP = new Set(['LI', 'TR', 'ARTICLE', 'DT', 'DD']);
const ROW_GROUP_ROLES = new Set(['row', 'listitem', 'article']);
// FRAME_MARK brackets a frame's id in the text; no page text holds it.
const FRAME_MARK = '\u0001';

S.frameIds = new WeakMap(); // iframe element -> its CDP frame id, set by frameBox

// reader makes the state of one reading. o.view is the part of this
// frame's viewport shown in the tab ({x0, y0, x1, y1}): the reading
// starts at its top, leaves out what lies above or beside it, and goes on
// below it while there is room; null reads the whole page. o.bare drops
// lines that only name controls unless they are their row's title;
// o.max bounds the characters kept; o.onLine and o.onGroup, when set, are
// told of every line and row as it ends (the passages of a query); o.lazy
// leaves the hidden-text checks to checkLine, for the lines kept.
function reader(o) {
  return {
    view: o.view || null, bare: !!o.bare, lazy: !!o.lazy, max: o.max > 0 ? o.max : Infinity, onLine: o.onLine || null, onGroup: o.onGroup || null,
    lines: [], groups: [], blocks: [], unchecked: [], cur: '', started: false, sp: false, prefix: '', prose: false,
    ctl: 0, pre: 0, cell: 0, rowCells: 0, lists: [], len: 0, full: false, skip: false, past: false, above: 0, below: 0,
  };
}

// approxLen is about how many characters of text a subtree holds, read
// cheaply (no styles): the size of what lies outside the view.
function approxLen(n) {
  if (n.nodeType === 3) return squash(n.data).length;
  if (n.nodeType !== 1 || READ_SKIP.has(n.tagName)) return 0;
  return squash(n.textContent).length;
}

// flushLine ends the line being built.
function flushLine(R) {
  if (R.started) {
    const t = R.cur.trimEnd();
    const ln = { t, prose: R.prose, keep: false, block: R.blocks[R.blocks.length - 1] || null, group: R.groups[R.groups.length - 1] || null };
    if (R.unchecked.length) { ln.unchecked = R.unchecked; R.unchecked = []; }
    R.lines.push(ln);
    // Below the view every line counts: a list of links there is read
    // only as far as the room goes.
    if (!R.bare || ln.prose || R.past) R.len += t.length + 1;
    if (R.onLine) R.onLine(ln, R);
    if (R.len > R.max) R.full = true;
  }
  R.cur = ''; R.started = false; R.sp = false; R.prose = false; R.skip = false;
  if (R.unchecked.length) R.unchecked = [];
}

// checkLine leaves out of a kept line the controls' words that are
// hidden (a screen-reader span in a link), which putText let through.
function checkLine(ln) {
  if (!ln.unchecked) return ln.t;
  let t = ln.t;
  for (let i = ln.unchecked.length - 1; i >= 0; i--) {
    const [a, b, p] = ln.unchecked[i];
    if (a < t.length && hiddenHow(p)) t = t.slice(0, a) + t.slice(b);
  }
  ln.unchecked = null;
  return (ln.t = t.replace(/ {2,}/g, ' ').trim());
}

// breakLine ends the line; the next starts with prefix, unless nothing
// was written since the last break and a list item's or heading's mark
// is still waiting for its words (<li><p>…).
function breakLine(R, prefix) {
  if (R.cell) { R.sp = true; return; }
  const waiting = !R.started && R.prefix.trim() !== '';
  flushLine(R);
  if (!waiting) R.prefix = prefix;
}

const indent = (R) => '  '.repeat(R.lists.length);

function begin(R) {
  if (!R.started) { R.cur = R.prefix; R.started = true; }
}

// putText adds the text s of element p to the line, unless p's text is
// hidden. A control's words in a bare reading, and every word in a lazy
// one (a query's), are checked only if their line is kept (checkLine):
// most such lines are rows of controls, which a bare reading drops, and
// a query keeps only the few lines that match.
function putText(R, s, p) {
  if (s.indexOf(FRAME_MARK) >= 0) s = s.split(FRAME_MARK).join('');
  const later = ((R.bare && R.ctl) || R.lazy) && !R.pre;
  if (!later && hiddenHow(p)) return;
  if (R.pre) {
    const parts = s.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) breakLine(R, indent(R));
      if (!parts[i].trim()) continue;
      begin(R);
      R.cur += parts[i];
      if (!R.ctl) R.prose = true;
    }
    return;
  }
  const core = squash(s);
  if (!core) { if (R.started) R.sp = true; return; }
  if (R.started && (R.sp || /^\s/.test(s)) && !/\s$/.test(R.cur)) R.cur += ' ';
  begin(R);
  if (later) R.unchecked.push([R.cur.length, R.cur.length + core.length, p]);
  R.cur += core;
  R.sp = /\s$/.test(s);
  if (!R.ctl) R.prose = true;
  // A line longer than all that is kept (5,000 buttons in one row) is
  // not read on.
  if (R.cur.length > R.max + 200) R.full = true;
  // In a bare reading a long line of nothing but controls' words is a
  // row of controls, which the control list holds: the rest of it is not
  // read.
  if ((R.bare || R.lazy) && !R.prose && R.cur.length > 150) R.skip = true;
}

// placeOf says where el lies against the view: 'in', 'above', 'below',
// 'side' (left or right of it), or 'in' when it has no box of its own.
function placeOf(R, el) {
  const v = R.view;
  const r = el.getBoundingClientRect();
  // No height of its own (floats, absolutely placed children): its
  // children say where they are.
  if (r.height === 0) return 'in';
  if (r.bottom <= v.y0) return 'above';
  if (r.right <= v.x0 || r.left >= v.x1) return 'side';
  if (r.top >= v.y1) return 'below';
  return 'in';
}

// namesControl: the element's words are a control's name (or a field's
// label), which the control list shows.
function namesControl(el, tag) {
  if (tag === 'LABEL' || tag === 'LEGEND' || tag === 'SUMMARY' || tag === 'BUTTON') return true;
  const r = el.getAttribute('role');
  if (r && NAMING_ROLES.has(r)) return true;
  return !!candidateRole(el, tag);
}

function headingLevel(el, tag) {
  if (/^H[1-6]$/.test(tag)) return +tag[1];
  if (el.getAttribute('role') === 'heading') return Math.min(6, Math.max(1, +(el.getAttribute('aria-level') || 2) || 2));
  return 0;
}

function readNode(R, n) {
  if (n.nodeType === 3) {
    const p = parentOf(n);
    if (p) putText(R, n.data, p);
    return;
  }
  if (n.nodeType !== 1) return;
  const tag = n.tagName;
  if (READ_SKIP.has(tag)) return;
  if (tag === 'IFRAME' || tag === 'FRAME') { readFrameMark(R, n); return; }
  if (tag === 'BR') { if (R.started) breakLine(R, indent(R)); return; }
  const cs = getComputedStyle(n);
  const d = cs.display;
  if (d === 'none') return;
  let inline = d.startsWith('inline') || d === 'contents' || d === 'ruby';
  // A box set in a line that holds a control is a card (a product with
  // its button), read as a block of its own; a badge stays in its line.
  if (inline && d !== 'inline' && d !== 'contents' && !namesControl(n, tag) && n.querySelector(CONTROL_SEL)) inline = false;
  if (R.view && !inline && n !== R.root) {
    // A view's text starts at its top: what lies above or beside it is
    // counted, and below it the reading goes on while there is room.
    const at = placeOf(R, n);
    if (at === 'above') { R.above += approxLen(n); return; }
    if (at === 'side') { R.below += approxLen(n); return; }
    if (at === 'below') R.past = true;
  }
  readElement(R, n, tag, cs, inline);
}

// readElement reads an element whose place is settled: its kind decides
// how its line starts and ends.
function readElement(R, n, tag, cs, inline) {
  const cell = tag === 'TD' || tag === 'TH';
  const apart = inline && cs.display !== 'inline' && cs.display !== 'contents';
  const block = !inline && !cell;
  const level = headingLevel(n, tag);
  if (cell) {
    if (R.cell) R.sp = true;
    else if (R.rowCells++ > 0) { begin(R); R.cur += ' | '; R.sp = false; }
  } else if (tag === 'TR') {
    breakLine(R, indent(R));
    R.rowCells = 0;
  } else if (tag === 'LI') {
    const l = R.lists[R.lists.length - 1];
    breakLine(R, '  '.repeat(Math.max(0, R.lists.length - 1)) + (l && l.ordered ? ++l.n + '. ' : '- '));
  } else if (level) {
    breakLine(R, '#'.repeat(level) + ' ');
  } else if (block) {
    breakLine(R, indent(R));
  } else if (apart && R.started) R.sp = true;
  const group = !R.cell && (ROW_GROUP.has(tag) || ROW_GROUP_ROLES.has(n.getAttribute('role') || '')) ? { el: n, from: R.lines.length } : null;
  if (group) R.groups.push(group);
  if (block || cell) R.blocks.push(n);
  const list = tag === 'UL' || tag === 'OL';
  if (list) R.lists.push({ ordered: tag === 'OL', n: 0 });
  const pre = cs.whiteSpace.startsWith('pre');
  const ctl = namesControl(n, tag);
  if (pre) R.pre++;
  if (ctl) { R.ctl++; if (R.started) R.sp = true; }
  if (cell) R.cell++;
  readChildren(R, n);
  if (cell) R.cell--;
  if (ctl) { R.ctl--; R.sp = true; }
  if (pre) R.pre--;
  if (list) R.lists.pop();
  if (block) breakLine(R, indent(R));
  else if (apart) R.sp = true;
  if (block || cell) R.blocks.pop();
  if (group) endGroup(R, group);
}

// endGroup closes a row, list item or card. In a bare reading the lines
// that only name controls and come before its first words stay, when it
// has words: its title, so a row's link is read with its figures
// ("ada/mill … ★ 2,345"); the buttons after them (Like, Share) do not.
function endGroup(R, g) {
  if (R.started) flushLine(R);
  R.groups.pop();
  let first = -1;
  for (let i = g.from; i < R.lines.length; i++) if (R.lines[i].prose) { first = i; break; }
  for (let i = g.from; i < first; i++) {
    const ln = R.lines[i];
    if (!ln.keep) { ln.keep = true; if (R.bare) R.len += ln.t.length + 1; }
  }
  if (R.onGroup) R.onGroup(g, R, first >= 0);
}

// readChildren reads n's children as rendered: a shadow root instead of
// the light children, a slot's assigned nodes (or its fallback). Once the
// reading is full, the rest is counted, not read.
function readChildren(R, n) {
  let kids;
  if (n.shadowRoot) kids = n.shadowRoot.childNodes;
  else if (n.tagName === 'SLOT') { const a = n.assignedNodes({ flatten: true }); kids = a.length ? a : n.childNodes; }
  else kids = n.childNodes;
  let i = 0;
  if (R.view && !n.shadowRoot && kids.length > 64 && blockFlow(n)) i = firstNear(R, kids);
  for (; i < kids.length; i++) {
    if (R.full || R.skip) { R.below += spanLen(kids, i, kids.length); return; }
    readNode(R, kids[i]);
  }
}

// spanLen is about how many characters kids[from:to] hold: one range's
// text where they are a parent's children (a row of 5,000 buttons costs
// one call), else each node's.
function spanLen(kids, from, to) {
  if (from >= to) return 0;
  const a = kids[from], b = kids[to - 1];
  if (a.parentNode && a.parentNode === b.parentNode && !(kids instanceof Array)) {
    const r = document.createRange();
    r.setStartBefore(a);
    r.setEndAfter(b);
    return r.toString().replace(/\s+/g, ' ').trim().length;
  }
  let n = 0;
  for (let i = from; i < to; i++) n += approxLen(kids[i]);
  return n;
}

// blockFlow: n lays its children out one under the other, in document
// order (not a flex or grid box, which may reorder or set them side by
// side).
function blockFlow(n) {
  const d = getComputedStyle(n).display;
  return d === 'block' || d === 'list-item' || d === 'flow-root' || d === 'table-row-group';
}

// firstNear skips, in a long container in block flow, the children
// wholly above the view by bisection (they stand in document order down
// the page), counting their text as above.
function firstNear(R, kids) {
  let lo = 0, hi = kids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    let k = kids[mid];
    let j = mid;
    while (k && k.nodeType !== 1 && j < hi - 1) k = kids[++j];
    if (!k || k.nodeType !== 1) { hi = mid; continue; }
    const r = k.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return 0;
    if (r.bottom <= R.view.y0) lo = j + 1; else hi = mid;
  }
  R.above += spanLen(kids, 0, lo);
  return lo;
}

// readFrameMark leaves the marker of a frame the Go side has named
// (frameBox) where its iframe stands, if the iframe shows.
function readFrameMark(R, el) {
  const id = S.frameIds.get(el);
  if (!id || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return;
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return;
  if (R.view && placeOf(R, el) !== 'in') return;
  if (R.started) flushLine(R);
  R.lines.push({ t: FRAME_MARK + id + FRAME_MARK, prose: true, keep: true, block: el, group: null, frame: true });
}

// readLines reads root into lines with the reader's options.
function readLines(root, o) {
  const R = reader(o);
  R.root = root;
  if (root) readNode(R, root);
  flushLine(R);
  return R;
}

// joinLines is the kept lines as text, within max characters.
function joinLines(R) {
  let out = '', cut = false;
  // In a bare reading, headings alone are no text: the observation lists
  // them already.
  if (R.bare && R.lines.every((ln) => (!ln.prose && !ln.keep) || ln.t.startsWith('#'))) return { text: '', cut: false };
  for (const ln of R.lines) {
    if (R.bare && !ln.prose && !ln.keep) continue;
    if (cut) { R.below += ln.t.length + 1; continue; }
    if (!checkLine(ln)) continue;
    if (out.length + ln.t.length + 1 > R.max) {
      // The line that does not fit is cut; what follows is counted.
      const room = R.max - out.length - 1;
      if (room > 20) out += (out ? '\n' : '') + ln.t.slice(0, room - 1) + '…';
      R.below += ln.t.length - Math.max(0, room > 20 ? room - 1 : 0);
      cut = true;
      continue;
    }
    out += (out ? '\n' : '') + ln.t;
  }
  return { text: out, cut: cut || R.full };
}

// viewText is the observation's text: what is in view, then what
// follows it while there is room. view is the part of this frame's
// viewport shown in the tab ([x0, y0, x1, y1]), or null for all of it.
// With root (a look within one element) it is that element's whole text
// instead.
function viewText(root, tmax, view) {
  const v = view ? { x0: view[0], y0: view[1], x1: view[2], y1: view[3] } : { x0: 0, y0: 0, x1: innerWidth, y1: innerHeight };
  const R = readLines(root || document.body, { view: root ? null : v, bare: true, max: tmax });
  const { text, cut } = joinLines(R);
  return { text, textCut: cut, above: R.above, below: R.below };
}

// read is read_page's text of this frame: every line, within max.
function read(o) {
  const R = readLines(document.body, { max: o && o.max > 0 ? o.max : 200000 });
  const { text, cut } = joinLines(R);
  return { url: location.href, title: document.title, text, cut };
}
