// Figures as the UI shows them, the same everywhere.
import type { ModelWait } from './types.gen'

/** money is an estimated cost in dollars: four decimals below a cent. */
export function money(n: number): string {
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`
}

/** tokens is a token count, shortened ("12k tok"): a local model has no price, and $0 says nothing. */
export function tokens(n: number): string {
  return n >= 10000 ? `${Math.round(n / 1000)}k tok` : n >= 1000 ? `${(n / 1000).toFixed(1)}k tok` : `${n} tok`
}

/** TabLike is what the UI knows of a tab: its id, title and URL. */
export interface TabLike {
  id: string
  title: string
  url: string
}

/**
 * tabName renders a tab for people as agents.TabInfo.Name does: its title
 * and host ("GitHub – octocat (github.com)"), the host alone when the title
 * only repeats the address, "a new tab" before it shows anything. A target
 * id means nothing to a person, so it is never part of the name.
 */
export function tabName(t: { title: string; url: string }): string {
  let host = ''
  try {
    host = new URL(t.url).hostname
  } catch {
    host = ''
  }
  let title = t.title.trim()
  const bare = t.url.includes('://') ? t.url.slice(t.url.indexOf('://') + 3) : ''
  if (title === t.url || (bare && title === bare)) title = ''
  const clip = (s: string) => (s.length > 80 ? s.slice(0, 79) + '…' : s)
  if (!title && !host) return 'a new tab'
  if (!title) return host
  if (!host) return clip(title)
  return `${clip(title)} (${host})`
}

/**
 * nameTabs replaces every known tab's target id in text with the tab's
 * name: a message written for the program ("moved to tab 8F48A993…") still
 * reads as a person knows the tab.
 */
export function nameTabs(text: string, tabs: readonly TabLike[]): string {
  let out = text
  for (const t of tabs) {
    if (t.id.length >= 8 && out.includes(t.id)) out = out.split(t.id).join(`“${tabName(t)}”`)
  }
  return out
}

/** seconds renders a wait as agents' roughly does: "20 s" from ten seconds, "0.3 s" below. */
function seconds(s: number): string {
  return s >= 10 ? `${Math.round(s)} s` : `${s.toFixed(1)} s`
}

/**
 * waitNotice is a model wait as its agent's tile says it (agents.ModelWait
 * less the agent's name, which the tile already shows): "model server slow:
 * waiting 20 s, retry 2/3 (HTTP 429)", or why the call has not been
 * answered yet. A wait that is over says nothing ('').
 */
export function waitNotice(w: ModelWait): string {
  if (w.done) return ''
  if (w.wait_s) return `model server slow: waiting ${seconds(w.wait_s)}, retry ${(w.attempt ?? 1) - 1}/${w.retries ?? 0} (${w.reason})`
  return `model server slow: ${w.reason}`
}

/** withWait is waits (by agent) once w is told: a wait that is over is taken down. */
export function withWait(waits: Readonly<Record<string, ModelWait>>, w: ModelWait): Record<string, ModelWait> {
  const next = { ...waits }
  if (w.done) delete next[w.agent]
  else next[w.agent] = w
  return next
}
