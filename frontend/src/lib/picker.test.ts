import { describe, expect, it } from 'vitest'
import {
  addMonths, composedText, edge, formatDate, isoWeek, minuteStep, monthGrid, normalColour, parseDate, parseTime, placeAt, placeUnder, step, typeToFind,
} from './picker'
import type { PickerOption } from './types.gen'

const opts = (labels: string[], disabled: number[] = []): PickerOption[] =>
  labels.map((label, i) => ({ label, value: String(i), disabled: disabled.includes(i) }))

describe('placeUnder', () => {
  it('goes under the element, as wide as it, scaled into the view', () => {
    expect(placeUnder({ x: 10, y: 10, w: 200, h: 30 }, 0.5, { w: 50, h: 100 }, { w: 640, h: 400 })).toEqual({ x: 5, y: 20, w: 100, h: 100 })
  })
  it('flips above when there is no room below, and stays in the view', () => {
    const b = placeUnder({ x: 1200, y: 700, w: 60, h: 30 }, 1, { w: 200, h: 300 }, { w: 1280, h: 800 })
    expect(b).toEqual({ x: 1080, y: 400, w: 200, h: 300 })
  })
  it('is as tall as the room below allows when that is the larger side', () => {
    expect(placeUnder({ x: 0, y: 100, w: 100, h: 20 }, 1, { w: 100, h: 1000 }, { w: 800, h: 600 })).toEqual({ x: 0, y: 120, w: 100, h: 480 })
  })
})

describe('placeAt', () => {
  it('opens at the point, flipped at the view edges', () => {
    expect(placeAt({ x: 10, y: 10 }, { w: 100, h: 50 }, { w: 300, h: 300 })).toEqual({ x: 10, y: 10, w: 100, h: 50 })
    expect(placeAt({ x: 250, y: 280 }, { w: 100, h: 50 }, { w: 300, h: 300 })).toEqual({ x: 150, y: 230, w: 100, h: 50 })
  })
})

describe('keyboard in a list', () => {
  const o = opts(['Apple', 'Banana', 'Blueberry', 'Cherry', 'Date'], [2])
  it('steps over disabled options and stops at the ends', () => {
    expect(step(o, 1, 1)).toBe(3)
    expect(step(o, 4, 1)).toBe(4)
    expect(step(o, 0, -1)).toBe(0)
    expect(edge(o, 1)).toBe(0)
    expect(edge(o, -1)).toBe(4)
    expect(edge(opts(['x'], [0]), 1)).toBe(-1)
  })
  it('finds by typing, cycling on a repeated letter, wrapping', () => {
    expect(typeToFind(o, 0, 'b')).toBe(1)
    expect(typeToFind(o, 1, 'bb')).toBe(1) // Blueberry is disabled: Banana again
    expect(typeToFind(o, 4, 'a')).toBe(0)
    expect(typeToFind(o, 0, 'ch')).toBe(3)
    expect(typeToFind(o, 0, 'z')).toBe(-1)
  })
})

describe('dates', () => {
  it('reads and writes the input forms', () => {
    expect(parseDate('2026-02-29')).toBeNull()
    expect(parseDate('2024-02-29')).toEqual({ y: 2024, m: 2, d: 29 })
    expect(parseDate('2026-03-14T09:30')).toEqual({ y: 2026, m: 3, d: 14 })
    expect(formatDate({ y: 2026, m: 3, d: 4 })).toBe('2026-03-04')
    expect(parseTime('2026-03-14T09:30')).toEqual({ h: 9, m: 30 })
    expect(parseTime('13:05:10')).toEqual({ h: 13, m: 5 })
    expect(minuteStep('900')).toBe(15)
    expect(minuteStep('')).toBe(1)
  })
  it('lays a month out Monday first', () => {
    const g = monthGrid(2026, 3) // 1 March 2026 is a Sunday
    expect(g[0][0]).toEqual({ y: 2026, m: 2, d: 23 })
    expect(g[0][6]).toEqual({ y: 2026, m: 3, d: 1 })
    expect(g.flat().filter((d) => d.m === 3)).toHaveLength(31)
  })
  it('numbers ISO weeks', () => {
    expect(isoWeek({ y: 2026, m: 1, d: 1 })).toBe('2026-W01')
    expect(isoWeek({ y: 2027, m: 1, d: 1 })).toBe('2026-W53')
    expect(isoWeek({ y: 2024, m: 12, d: 30 })).toBe('2025-W01')
  })
  it('moves months across years', () => {
    expect(addMonths(2026, 12, 1)).toEqual({ y: 2027, m: 1 })
    expect(addMonths(2026, 1, -1)).toEqual({ y: 2025, m: 12 })
  })
})

describe('colours and text', () => {
  it('normalises a typed colour', () => {
    expect(normalColour('#F80')).toBe('#ff8800')
    expect(normalColour('00ff00')).toBe('#00ff00')
    expect(normalColour('red')).toBeNull()
  })
  it('types emoji whole, named keys not', () => {
    expect(composedText('😀')).toBe('😀')
    expect(composedText('👍🏽')).toBe('👍🏽')
    expect(composedText('a')).toBe('')
    expect(composedText('Enter')).toBe('')
    expect(composedText('ArrowDown')).toBe('')
  })
})
