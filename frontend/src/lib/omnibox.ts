// What the omnibox would do with its text: a URL navigates, anything else is
// a task. The rule is deliberately conservative: "summarise example.com" is a
// task even though it contains a host.

export type Classified =
  | { kind: 'empty' }
  | { kind: 'url'; url: string }
  | { kind: 'task'; task: string }

const hostLike = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|([a-z0-9-]+\.)+[a-z]{2,})(:\d{1,5})?(\/\S*)?$/i

export function classify(raw: string): Classified {
  const text = raw.trim()
  if (text === '') return { kind: 'empty' }
  if (/\s/.test(text)) return { kind: 'task', task: text }
  if (/^(https?|file|about|chrome):/i.test(text)) return { kind: 'url', url: text }
  if (hostLike.test(text)) {
    const local = /^(localhost|127\.|\[::1\])/i.test(text)
    return { kind: 'url', url: (local ? 'http://' : 'https://') + text }
  }
  return { kind: 'task', task: text }
}
