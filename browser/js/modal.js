// Dialogs and modal layers: the open dialog, what blocks the page behind
// it (a modal dialog or a backdrop), and which controls it leaves out of
// reach.

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
