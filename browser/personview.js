// The half in the page of a person's tab (personview.go). It runs in an
// isolated world the page's scripts cannot see, in every frame, and tells
// Vroom through a binding what headless Chromium neither draws nor says:
// the popup of a native select, a date, time, colour or datalist input
// (prevented here, drawn by Vroom), the cursor shape under the pointer,
// the context menu's request, and the text a copy or cut took. A choice
// made in Vroom's popup comes back through choose, as a person's choice in
// Chrome's would: the value set, then input and change.
(() => {
  if (globalThis.__vroomPerson) {
    globalThis.__vroomPerson.resume()
    return
  }
  const send = (m) => {
    try {
      globalThis[BINDING](JSON.stringify(m))
    } catch {
      // The binding is gone while Vroom stops serving the tab.
    }
  }
  let on = true
  let next = 1
  const open = new Map() // local picker id → element
  let cursor = ''

  const dateKinds = new Set(['date', 'time', 'datetime-local', 'month', 'week'])

  // kindOf is the popup an element asks for, '' when none.
  function kindOf(el) {
    if (!(el instanceof Element) || el.disabled) return ''
    if (el.localName === 'select') return el.multiple || el.size > 1 ? '' : 'select'
    if (el.localName !== 'input' || el.readOnly) return ''
    const t = el.type
    if (dateKinds.has(t) || t === 'color') return t
    if (el.list && el.list.options.length > 0 && ['text', 'search', 'url', 'tel', 'email', 'number'].includes(t)) return 'datalist'
    return ''
  }

  // topRect is el's box in the top frame's viewport; in a frame under
  // another origin's (one in its own process, most often) it is the box in
  // this frame's viewport, marked frame: Vroom adds where the frame is.
  function topRect(el) {
    const r = el.getBoundingClientRect()
    const p = toTop(r.left, r.top)
    return { x: p.x, y: p.y, w: r.width, h: r.height, frame: p.frame }
  }

  function toTop(x, y) {
    let w = window
    let tx = x
    let ty = y
    try {
      while (w !== w.top) {
        const fe = w.frameElement
        if (!fe) return { x, y, frame: true }
        const r = fe.getBoundingClientRect()
        tx += r.left + fe.clientLeft
        ty += r.top + fe.clientTop
        w = w.parent
      }
    } catch {
      return { x, y, frame: true }
    }
    return { x: tx, y: ty, frame: false }
  }

  function options(el, kind) {
    if (kind === 'select') {
      return [...el.options].map((o, i) => ({
        label: o.label || o.text, value: String(i), group: o.parentElement?.localName === 'optgroup' ? o.parentElement.label : '',
        disabled: o.disabled || !!o.closest('optgroup[disabled]'), selected: o.selected, hidden: o.hidden,
      })).filter((o) => !o.hidden)
    }
    if (kind === 'datalist') {
      const typed = el.value.toLowerCase()
      return [...el.list.options].filter((o) => !o.disabled && o.value && (!typed || o.value.toLowerCase().includes(typed) || o.label.toLowerCase().includes(typed)))
        .map((o) => ({ label: o.label && o.label !== o.value ? o.label : '', value: o.value, group: '', disabled: false, selected: false }))
    }
    return []
  }

  // show asks Vroom to draw el's popup; an open one is asked again with
  // its options as they are now (a datalist filtered by what was typed).
  function show(el, kind) {
    let id = 0
    for (const [k, v] of open) if (v === el) id = k
    if (!id) {
      id = next++
      open.set(id, el)
    }
    const rect = topRect(el)
    const opts = options(el, kind)
    if (kind === 'datalist' && opts.length === 0) {
      hide(el)
      return false
    }
    send({ kind: 'picker', picker: {
      id, type: kind, rect, options: opts, value: el.value, min: el.min || '', max: el.max || '', step: el.step || '',
    } })
    return true
  }

  function hide(el) {
    for (const [k, v] of open) {
      if (v === el) {
        open.delete(k)
        send({ kind: 'picker-closed', id: k })
      }
    }
  }

  // Date-like inputs open their popup from the indicator at their right
  // end, as in Chrome; the rest of the field edits its parts in place.
  function onIndicator(el, kind, x) {
    if (!dateKinds.has(kind)) return true
    const r = el.getBoundingClientRect()
    return x >= r.right - 28
  }

  function target(ev) {
    const t = ev.composedPath ? ev.composedPath()[0] : ev.target
    return t instanceof Element ? t : t?.parentElement
  }

  addEventListener('mousedown', (ev) => {
    if (!on || !ev.isTrusted || ev.button !== 0) return
    const el = target(ev)?.closest?.('select, input')
    const kind = kindOf(el)
    if (!kind) return
    if (kind === 'datalist') {
      setTimeout(() => on && show(el, kind), 0)
      return
    }
    if (!onIndicator(el, kind, ev.clientX)) return
    // Chromium's own popup would open unseen and take the keys.
    ev.preventDefault()
    el.focus()
    show(el, kind)
  }, true)

  addEventListener('keydown', (ev) => {
    if (!on || !ev.isTrusted) return
    const el = target(ev)
    const kind = kindOf(el)
    if (!kind) return
    const alt = ev.altKey && (ev.key === 'ArrowDown' || ev.key === 'ArrowUp')
    const opens = alt || ev.key === 'F4' || (kind === 'select' && ev.key === ' ') || (kind === 'color' && (ev.key === ' ' || ev.key === 'Enter')) ||
      (kind === 'datalist' && ev.key === 'ArrowDown')
    if (!opens) return
    ev.preventDefault()
    show(el, kind)
  }, true)

  addEventListener('input', (ev) => {
    const el = target(ev)
    if (on && ev.isTrusted && kindOf(el) === 'datalist') show(el, 'datalist')
  }, true)

  addEventListener('focusout', (ev) => {
    const el = target(ev)
    if (on && kindOf(el) === 'datalist') hide(el)
  }, true)

  // The cursor the page asks for under the pointer: its computed cursor,
  // and for auto what Chrome shows (a text beam over text and fields).
  function cursorAt(el, x, y) {
    if (!el) return 'default'
    let c = getComputedStyle(el).cursor || 'auto'
    if (c.includes(',')) c = c.slice(c.lastIndexOf(',') + 1).trim()
    if (c.startsWith('url(')) c = 'auto'
    if (c !== 'auto') return c
    if (el.isContentEditable || (el.localName === 'textarea') || (el.localName === 'input' && !['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image'].includes(el.type))) return 'text'
    const r = document.caretRangeFromPoint?.(x, y)
    const n = r?.startContainer
    if (n && n.nodeType === Node.TEXT_NODE && n.data.trim()) {
      const range = document.createRange()
      range.selectNodeContents(n)
      for (const b of range.getClientRects()) {
        if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) return 'text'
      }
    }
    return 'default'
  }

  addEventListener('mousemove', (ev) => {
    if (!on || !ev.isTrusted) return
    const c = cursorAt(target(ev), ev.clientX, ev.clientY)
    if (c !== cursor) {
      cursor = c
      send({ kind: 'cursor', cursor: c })
    }
  }, true)

  function editable(el) {
    return !!el && (el.isContentEditable || el.localName === 'textarea' ||
      (el.localName === 'input' && !['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image', 'hidden'].includes(el.type) && !el.readOnly && !el.disabled))
  }

  // deepActive is the focused element, inside same-origin frames and
  // shadow roots.
  function deepActive() {
    let el = document.activeElement
    for (;;) {
      if (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
      else if (el?.localName === 'iframe' || el?.localName === 'frame') {
        try {
          const d = el.contentDocument
          if (!d?.activeElement) return el
          el = d.activeElement
        } catch {
          return el
        }
      } else return el
    }
  }

  // selectedText is what a copy takes: a field's selected characters, or
  // the document's selection.
  function selectedText(el) {
    if (el && (el.localName === 'textarea' || el.localName === 'input')) {
      try {
        if (el.selectionStart !== null && el.selectionEnd > el.selectionStart) return el.value.slice(el.selectionStart, el.selectionEnd)
      } catch {
        // A type with no selection API (email, number): nothing selected.
      }
    }
    const s = (el?.ownerDocument ?? document).getSelection()
    return s ? s.toString() : ''
  }

  addEventListener('contextmenu', (ev) => {
    if (!on || !ev.isTrusted) return
    const el = target(ev)
    const p = toTop(ev.clientX, ev.clientY)
    // After the page's own handlers: one that prevents it gets no menu.
    setTimeout(() => {
      if (ev.defaultPrevented) return
      const a = el?.closest?.('a[href]')
      const focused = deepActive()
      send({ kind: 'menu', menu: {
        x: p.x, y: p.y, frame: p.frame, link: a ? a.href : '', linkText: a ? a.textContent.trim().slice(0, 200) : '',
        selection: selectedText(focused).slice(0, 100000), editable: editable(el) || (editable(focused) && focused.contains(el)),
      } })
    }, 0)
  })

  for (const kind of ['copy', 'cut']) {
    let text = ''
    // Read before a cut removes it; a page that writes its own data and
    // prevents the default has that data taken instead.
    addEventListener(kind, (ev) => { if (ev.isTrusted) text = selectedText(deepActive()) }, true)
    addEventListener(kind, (ev) => {
      if (!on || !ev.isTrusted) return
      const own = ev.defaultPrevented ? ev.clipboardData?.getData('text/plain') ?? '' : text
      if (own) send({ kind: 'copied', text: own })
    })
  }

  // setValue sets a field's value as typing would reach the page: through
  // the element's own setter, then input and change.
  function setValue(el, v) {
    if (el.value === v) return false
    el.value = v
    return true
  }

  globalThis.__vroomPerson = {
    // choose makes the person's choice in picker id: a select's option
    // index, or an input's new value.
    choose(id, value) {
      const el = open.get(id)
      open.delete(id)
      if (!el || !el.isConnected) return 'gone'
      el.focus()
      let changed
      if (el.localName === 'select') {
        const i = Number(value)
        if (!(i >= 0 && i < el.options.length) || el.options[i].disabled) return 'no option'
        changed = el.selectedIndex !== i
        el.selectedIndex = i
      } else {
        changed = setValue(el, String(value))
      }
      if (changed) {
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
        el.dispatchEvent(new Event('change', { bubbles: true }))
      }
      return ''
    },
    // dismiss forgets picker id without a choice (Escape, a click away).
    dismiss(id) {
      open.get(id)?.focus()
      open.delete(id)
    },
    // paste gives the focused element a paste event carrying text, and
    // says whether the text should be inserted (the page did not handle
    // it and the element takes text).
    paste(text) {
      const el = deepActive()
      if (!el) return false
      const dt = new DataTransfer()
      dt.setData('text/plain', text)
      const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true, composed: true })
      el.dispatchEvent(ev)
      return !ev.defaultPrevented && editable(el)
    },
    selection() {
      return selectedText(deepActive())
    },
    // rescroll makes the root scroller's scrollbars again, which takes
    // in whether they show; the page's own style is put back as it was.
    rescroll() {
      const de = document.documentElement
      const was = de.style.getPropertyValue('overflow')
      const prio = de.style.getPropertyPriority('overflow')
      de.style.setProperty('overflow', 'hidden', 'important')
      void de.offsetWidth
      if (was) de.style.setProperty('overflow', was, prio)
      else de.style.removeProperty('overflow')
      if (!de.getAttribute('style')) de.removeAttribute('style')
      void de.offsetWidth
    },
    off() {
      on = false
      open.clear()
    },
    resume() {
      on = true
      started()
    },
  }
  // started says the top document is served, and shows its scrollbars
  // if it was made before (Chromium hid them for an agent).
  function started() {
    if (window !== window.top) return
    send({ kind: 'ready' })
    if (document.readyState !== 'loading') globalThis.__vroomPerson.rescroll()
  }
  started()
})()
