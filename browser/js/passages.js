// The passages a query matches: the lines of the page, read as read_page
// reads them (read.js), that contain the query, each with the controls
// near it, so a model searching for a sentence finds the sentence and
// what acts on it.

const PASSAGE_MAX = 300;
const PASSAGES_MAX = 5;

// sentenceAround is the sentence of t holding the match at i (n
// characters), cut to PASSAGE_MAX around it; a short line is itself.
function sentenceAround(t, i, n) {
  if (t.length <= PASSAGE_MAX) return t;
  let a = 0;
  for (let k = i - 1; k > 0; k--) if (/[.!?]/.test(t[k]) && t[k + 1] === ' ') { a = k + 2; break; }
  let b = t.length;
  const m = /[.!?](\s|$)/g;
  m.lastIndex = i + n;
  const e = m.exec(t);
  if (e) b = e.index + 1;
  if (b - a > PASSAGE_MAX) {
    a = Math.max(a, i - 100);
    b = Math.min(b, a + PASSAGE_MAX);
  }
  return (a > 0 ? '…' : '') + t.slice(a, b).trim() + (b < t.length && !/[.!?]$/.test(t.slice(a, b)) ? '…' : '');
}

// bareLine is a line without its indent and its list or heading mark.
const bareLine = (t) => t.replace(/^\s*(?:#+|-|\d+\.)\s+/, '').trim();

// passagesOf reads root and returns at most PASSAGES_MAX passages that
// contain query (lower case): {text, el}, el the block or row they come
// from. A line that only names controls is the controls' match, not a
// passage, unless its row has other words: then the row is the passage
// (a repository's link matched, read with its description and stars). A
// heading's passage goes on with the lines under it.
function passagesOf(query, root) {
  const out = [];
  let follow = null;
  const give = (text, el) => { if (out.length < PASSAGES_MAX) out.push({ text, el }); };
  const onLine = (ln, R) => {
    if (follow) {
      if (ln.t.startsWith('#') || follow.text.length >= PASSAGE_MAX) follow = null;
      else if (!ln.frame && checkLine(ln)) follow.text = clip(follow.text + ' / ' + bareLine(ln.t), PASSAGE_MAX);
    }
    if (out.length >= PASSAGES_MAX) { R.full = true; return; }
    if (ln.frame || ln.t.toLowerCase().indexOf(query) < 0) return;
    // A row's lines are judged together when it ends.
    if (ln.group) { ln.group.hit = true; return; }
    if (!ln.prose || checkLine(ln).toLowerCase().indexOf(query) < 0) return;
    const t = bareLine(ln.t);
    if (ln.t.startsWith('#')) { follow = { text: t, el: ln.block }; out.push(follow); return; }
    give(sentenceAround(t, t.toLowerCase().indexOf(query), query.length), ln.block);
  };
  const onGroup = (g, R, prose) => {
    if (!g.hit || out.length >= PASSAGES_MAX) return;
    if (!prose) {
      // Bare controls (a list item that is a link): the row around them
      // may have the words.
      const up = R.groups[R.groups.length - 1];
      if (up) up.hit = true;
      return;
    }
    const lines = R.lines.slice(g.from).filter((l) => !l.frame && checkLine(l));
    const all = lines.map((l) => bareLine(l.t)).join(' / ');
    if (all.length <= PASSAGE_MAX * 1.5) { give(clip(all, PASSAGE_MAX * 1.5), g.el); return; }
    for (const l of lines) {
      const t = bareLine(l.t);
      const i = t.toLowerCase().indexOf(query);
      if (i >= 0 && l.prose) give(sentenceAround(t, i, query.length), l.block || g.el);
    }
  };
  readLines(root, { onLine, onGroup, lazy: true });
  return out;
}
