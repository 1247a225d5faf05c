// The popups Vroom draws over the person's tab where Chrome would (a
// select's list, date, time, colour and datalist pickers, the context
// menu): where they go in the view, how the keyboard moves in them, and
// the HTML forms of the values they choose. Pure, so vitest covers it.
import type { PickerOption, Rect } from './types.gen'

/** Box is a position and size in the view's CSS pixels. */
export interface Box {
  x: number
  y: number
  w: number
  h: number
}

/**
 * placeUnder puts a popup of size want under the element at rect (the
 * page's CSS pixels, shown at scale in a view of size view), as Chrome
 * does: left-aligned with it and at least as wide, above it when there is
 * no room below, kept inside the view, and as tall as the room allows.
 */
export function placeUnder(rect: Rect, scale: number, want: { w: number; h: number }, view: { w: number; h: number }): Box {
  const x0 = rect.x * scale
  const top = rect.y * scale
  const bottom = (rect.y + rect.h) * scale
  const w = Math.min(view.w, Math.max(want.w, rect.w * scale))
  const below = view.h - bottom
  const above = top
  let y: number
  let h: number
  if (want.h <= below || below >= above) {
    y = bottom
    h = Math.min(want.h, below)
  } else {
    h = Math.min(want.h, above)
    y = top - h
  }
  const x = Math.max(0, Math.min(x0, view.w - w))
  return { x, y: Math.max(0, y), w, h: Math.max(0, h) }
}

/** placeAt puts a menu of size want at the point p, flipped to stay inside the view. */
export function placeAt(p: { x: number; y: number }, want: { w: number; h: number }, view: { w: number; h: number }): Box {
  const x = p.x + want.w <= view.w ? p.x : Math.max(0, p.x - want.w)
  const y = p.y + want.h <= view.h ? p.y : Math.max(0, p.y - want.h)
  return { x, y, w: want.w, h: Math.min(want.h, view.h) }
}

/** step is the next enabled option from i in direction dir (±1), or i when there is none. */
export function step(options: PickerOption[], i: number, dir: number): number {
  for (let j = i + dir; j >= 0 && j < options.length; j += dir) {
    if (!options[j].disabled) return j
  }
  return i
}

/** edge is the first (dir 1) or last (dir -1) enabled option, -1 when none is. */
export function edge(options: PickerOption[], dir: number): number {
  const start = dir > 0 ? -1 : options.length
  const j = step(options, start, dir)
  return j === start ? -1 : j
}

/**
 * typeToFind is the option a person typing prefix jumps to: the next
 * enabled one after from whose label starts with it (case-insensitive),
 * wrapping around; a prefix of one repeated letter cycles through the
 * options starting with that letter, as in Chrome. -1 when none matches.
 */
export function typeToFind(options: PickerOption[], from: number, prefix: string): number {
  const p = prefix.toLowerCase()
  const same = p.length > 1 && [...p].every((c) => c === p[0])
  const want = same ? p[0] : p
  const n = options.length
  // A longer prefix keeps the current option when it still matches.
  const first = p.length > 1 && !same ? 0 : 1
  for (let k = first; k < n + first; k++) {
    const j = (from + k + n) % n
    const o = options[j]
    if (!o.disabled && o.label.toLowerCase().startsWith(want)) return j
  }
  return -1
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** Day is a calendar date. */
export interface Day {
  y: number
  m: number // 1–12
  d: number
}

/** parseDate reads YYYY-MM-DD (the start of a date or datetime-local value); null when it is not one. */
export function parseDate(v: string): Day | null {
  const m = /^(\d{4,})-(\d{2})-(\d{2})/.exec(v)
  if (!m) return null
  const day = { y: +m[1], m: +m[2], d: +m[3] }
  return day.m >= 1 && day.m <= 12 && day.d >= 1 && day.d <= daysIn(day.y, day.m) ? day : null
}

/** formatDate is a date input's value for day. */
export function formatDate(day: Day): string {
  return `${pad(day.y, 4)}-${pad(day.m)}-${pad(day.d)}`
}

/** daysIn is the number of days in month m (1–12) of year y. */
export function daysIn(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate()
}

/**
 * monthGrid is the weeks of the month shown by a date picker, Monday
 * first: each week's seven days, those of the months around it included
 * (marked by their m).
 */
export function monthGrid(y: number, m: number): Day[][] {
  const first = new Date(Date.UTC(y, m - 1, 1))
  const lead = (first.getUTCDay() + 6) % 7
  const weeks: Day[][] = []
  let t = Date.UTC(y, m - 1, 1 - lead)
  while (weeks.length < 6) {
    const week: Day[] = []
    for (let i = 0; i < 7; i++) {
      const d = new Date(t)
      week.push({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() })
      t += 86400000
    }
    weeks.push(week)
    const next = new Date(t)
    if (next.getUTCMonth() + 1 !== m && weeks.length >= 4) break
  }
  return weeks
}

/** isoWeek is the ISO 8601 week day falls in, as a week input's value (2026-W05). */
export function isoWeek(day: Day): string {
  const t = new Date(Date.UTC(day.y, day.m - 1, day.d))
  const dow = (t.getUTCDay() + 6) % 7
  t.setUTCDate(t.getUTCDate() - dow + 3) // the Thursday of its week
  const year = t.getUTCFullYear()
  const week = 1 + Math.floor((t.getTime() - Date.UTC(year, 0, 1)) / 86400000 / 7)
  return `${pad(year, 4)}-W${pad(week)}`
}

/** addMonths moves the year and month (1–12) by n months. */
export function addMonths(y: number, m: number, n: number): { y: number; m: number } {
  const k = y * 12 + (m - 1) + n
  return { y: Math.floor(k / 12), m: (k % 12) + 1 }
}

/** inRange says whether value (a date input's form, compared as text, which orders them) is within min and max. */
export function inRange(value: string, min?: string, max?: string): boolean {
  return (!min || value >= min) && (!max || value <= max)
}

/** formatTime is a time input's value, HH:MM. */
export function formatTime(h: number, m: number): string {
  return `${pad(h)}:${pad(m)}`
}

/** parseTime reads HH:MM from the start of a time value or after a datetime-local's T. */
export function parseTime(v: string): { h: number; m: number } | null {
  const t = /(?:^|T)(\d{2}):(\d{2})/.exec(v)
  return t ? { h: +t[1], m: +t[2] } : null
}

/** minuteStep is the minutes between a time picker's choices, from the input's step in seconds (default 1 minute, at least 1). */
export function minuteStep(step?: string): number {
  const s = Number(step)
  if (!(s > 0)) return 1
  return Math.max(1, Math.round(s / 60))
}

/** isColour says whether v is a colour input's value form, #rrggbb. */
export function isColour(v: string): boolean {
  return /^#[0-9a-f]{6}$/i.test(v)
}

/** normalColour is v as a colour input holds it (#rrggbb, lower case), from #rgb or #rrggbb; null when it is neither. */
export function normalColour(v: string): string | null {
  let s = v.trim().toLowerCase()
  if (!s.startsWith('#')) s = '#' + s
  if (/^#[0-9a-f]{3}$/.test(s)) s = '#' + [...s.slice(1)].map((c) => c + c).join('')
  return isColour(s) ? s : null
}

/** palette is the colour picker's swatches: rows of hues light to dark, and a grey row. */
export function palette(): string[][] {
  const hex = (r: number, g: number, b: number) => '#' + [r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')
  const rows: string[][] = []
  for (const l of [0.85, 0.7, 0.5, 0.35, 0.2]) {
    const row: string[] = []
    for (let i = 0; i < 10; i++) {
      const [r, g, b] = hslToRgb(i * 36, 0.8, l)
      row.push(hex(r, g, b))
    }
    rows.push(row)
  }
  rows.push(Array.from({ length: 10 }, (_, i) => hex(i * 28.3, i * 28.3, i * 28.3)))
  return rows
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const c = (1 - Math.abs(2 * l - 1)) * s
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1))
  const m = l - c / 2
  const [r, g, b] = h < 60 ? [c, x, 0] : h < 120 ? [x, c, 0] : h < 180 ? [0, c, x] : h < 240 ? [0, x, c] : h < 300 ? [x, 0, c] : [c, 0, x]
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255]
}

/**
 * composedText is the text a key event types whole rather than as a key:
 * one character outside the Basic Multilingual Plane or a cluster of
 * several code points (an emoji, with its modifiers), which a key event
 * cannot carry. '' for an ordinary key.
 */
export function composedText(key: string): string {
  if (key.length <= 1) return ''
  const points = [...key]
  if (points.length === 1) return key
  // A named key (Enter, ArrowDown) is ASCII letters; typed text is not.
  return /^[A-Za-z0-9]+$/.test(key) ? '' : key
}
