// Text around controls and of the page: the row or card a control sits
// in, how a control matches a query, and the page's visible prose.

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
