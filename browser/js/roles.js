// The walker's roles: what a person would call an element (its ARIA role,
// or the one its tag and type imply), and which elements are controls an
// agent can act on. The words that mark a field sensitive are here too.

const ROLE_BY_TAG = {
  A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox',
  SUMMARY: 'button', OPTION: 'option', H1: 'heading', H2: 'heading',
  H3: 'heading', DIALOG: 'dialog', IMG: 'img',
};
const INPUT_ROLE = {
  button: 'button', submit: 'button', reset: 'button', image: 'button',
  checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
  search: 'searchbox', file: 'file', color: 'button',
};
// Roles that make an element a control an agent can act on.
const CONTROL_ROLES = new Set([
  'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'listbox',
  'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'gridcell', 'file',
]);
const NO_CONTENT_NAME = new Set(['file', 'region', 'list', 'listbox', 'textbox', 'searchbox', 'combobox', 'dialog', 'alertdialog', 'grid', 'tree', 'menu', 'tablist', 'slider', 'spinbutton']);
const NAMING_TAGS = new Set(['LABEL', 'BUTTON', 'A', 'OPTION', 'SELECT', 'TEXTAREA', 'SUMMARY', 'LEGEND', 'H1', 'H2', 'H3', 'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
const NAMING_ROLES = new Set(['button', 'option', 'link', 'tab', 'menuitem', 'checkbox', 'radio', 'switch']);
const SENSITIVE_AC = /(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)/i;
const SENSITIVE_NAME = /(pass(word|wd)?|pwd|card.?(num|no)|cc.?(num|no)|cvv|cvc|csc|security.?code|otp|one.?time|\bpin\b|2fa|totp)/i;

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
  // What a drag moves, and where it can drop: a card that says it is
  // draggable, and a labelled zone that holds such cards or takes drops.
  if (el.getAttribute('draggable') === 'true') return role || 'draggable';
  if (el.hasAttribute('aria-dropeffect')) return role || 'region';
  if ((tag === 'SECTION' && el.hasAttribute('aria-label')) || role === 'list' || role === 'region') {
    // A board's empty column is a zone too: its siblings hold the cards.
    const board = el.parentElement || el;
    if (board.querySelector('[draggable="true"],[aria-roledescription="sortable"]')) return role || 'region';
  }
  if (tag === 'LABEL' || tag === 'DIV' || tag === 'SPAN' || tag === 'LI' || tag === 'TD' || tag === 'CANVAS' || tag === 'IMG') {
    if (el.hasAttribute('onclick')) return role || 'button';
    const ti = el.getAttribute('tabindex');
    if (ti !== null && +ti >= 0) return role || (tag === 'CANVAS' ? 'canvas' : 'generic');
  }
  return '';
}
