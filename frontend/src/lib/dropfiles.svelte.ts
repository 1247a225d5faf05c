// Files dropped from the desktop onto the omnibox: the next task's files,
// shown as chips until it is sent. Wails reports a drop's paths with the
// point it landed at ('wails:file-drop'); only a drop on the omnibox
// counts.
import { EventsOn } from '../../wailsjs/runtime/runtime'

/** fileName is the last element of a path, as the chip shows it. */
export function fileName(path: string): string {
  const parts = path.split('/').filter((p) => p !== '')
  return parts[parts.length - 1] ?? path
}

/** addPaths adds paths to files, each once, keeping the order they came in. */
export function addPaths(files: readonly string[], paths: readonly string[]): string[] {
  const out = [...files]
  for (const p of paths) if (p && !out.includes(p)) out.push(p)
  return out
}

/**
 * isFileDrag says whether a drag carries files from outside: 'Files', or
 * the bare text/uri-list a GTK program (a file manager) offers, which the
 * web view would otherwise drop into a field as the file's URI, or open.
 */
export function isFileDrag(ev: DragEvent): boolean {
  const types = ev.dataTransfer?.types ?? []
  return types.includes('Files') || types.includes('text/uri-list')
}

class DroppedFiles {
  files: string[] = $state([])
  private started = false

  /** start listens for drops onto target (the omnibox). */
  start(target: () => Element | undefined) {
    if (this.started) return
    this.started = true
    // Anywhere in the window, a file dropped is never the web view's: its
    // path comes from Wails, and only the omnibox takes it.
    const hold = (ev: DragEvent) => {
      if (isFileDrag(ev)) ev.preventDefault()
    }
    window.addEventListener('dragover', hold)
    window.addEventListener('drop', hold)
    EventsOn('wails:file-drop', (x: number, y: number, paths: string[]) => {
      const el = target()
      const at = document.elementFromPoint(x, y)
      if (!el || !at || !el.contains(at)) return
      this.files = addPaths(this.files, paths ?? [])
    })
  }

  remove(path: string) {
    this.files = this.files.filter((f) => f !== path)
  }

  /** take returns the files for a task being sent and clears them. */
  take(): string[] {
    const f = this.files
    this.files = []
    return f
  }

  /** restore puts files back after a refused task. */
  restore(files: string[]) {
    if (this.files.length === 0) this.files = files
  }
}

export const droppedFiles = new DroppedFiles()
