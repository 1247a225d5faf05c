// Find in page, as Chrome's find bar: every match of the query in the
// page's visible text, case-insensitively, highlighted (the active one
// apart) and the active one scrolled into view. step moves the active
// match (1 next, -1 previous, 0 keeps it); an empty query clears.
(query, step) => {
  const key = Symbol.for('vroom.findInPage')
  let st = window[key]
  if (!st) {
    st = { query: '', ranges: [], active: -1 }
    Object.defineProperty(window, key, { value: st })
    if (window.CSS && CSS.highlights) {
      const sheet = new CSSStyleSheet()
      sheet.replaceSync('::highlight(vroom-find){background-color:#ffff00;color:#000}::highlight(vroom-find-active){background-color:#ff9632;color:#000}')
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
    }
  }
  const paint = () => {
    if (!(window.CSS && CSS.highlights)) return
    CSS.highlights.delete('vroom-find')
    CSS.highlights.delete('vroom-find-active')
    if (!st.ranges.length) return
    CSS.highlights.set('vroom-find', new Highlight(...st.ranges.filter((_, i) => i !== st.active)))
    CSS.highlights.set('vroom-find-active', new Highlight(st.ranges[st.active]))
  }
  const stale = () => st.ranges.some((r) => !r.startContainer.isConnected)
  if (query === '') {
    st.query = ''
    st.ranges = []
    st.active = -1
    paint()
    return { matches: 0, active: 0 }
  }
  if (query !== st.query || stale()) {
    const needle = query.toLowerCase()
    const ranges = []
    const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA'])
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT, {
      acceptNode(n) {
        const el = n.parentElement
        if (!el || skip.has(el.tagName)) return NodeFilter.FILTER_REJECT
        if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return NodeFilter.FILTER_REJECT
        return NodeFilter.FILTER_ACCEPT
      },
    })
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const hay = n.data.toLowerCase()
      for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
        const r = document.createRange()
        r.setStart(n, i)
        r.setEnd(n, i + needle.length)
        ranges.push(r)
      }
    }
    st.query = query
    st.ranges = ranges
    st.active = ranges.length ? 0 : -1
  } else if (st.ranges.length) {
    st.active = (st.active + step + st.ranges.length) % st.ranges.length
  }
  paint()
  const r = st.ranges[st.active]
  if (r) {
    const el = r.startContainer.parentElement
    const box = r.getBoundingClientRect()
    if (el && (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth)) el.scrollIntoView({ block: 'center', inline: 'nearest' })
  }
  return { matches: st.ranges.length, active: st.active + 1 }
}
