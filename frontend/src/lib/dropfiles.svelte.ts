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

class DroppedFiles {
  files: string[] = $state([])
  private started = false

  /** start listens for drops onto target (the omnibox). */
  start(target: () => Element | undefined) {
    if (this.started) return
    this.started = true
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
