// The one place the UI talks to Go. Wails rejects a bound call's promise with
// a bare string; every call here turns that into a real Error so components
// can rely on `err.message` and `instanceof Error`.
import * as Go from '../../wailsjs/go/app/App'
import { app } from '../../wailsjs/go/models'

// Plain data: the generated classes carry a helper method that form copies lack.
export type Settings = Omit<app.Settings, 'convertValues'>
export type State = app.State
export type LocalServer = app.LocalServer

/** GoError is a failure reported by the Go side (or by the bridge itself). */
export class GoError extends Error {
  readonly op: string
  constructor(op: string, message: string) {
    super(message)
    this.name = 'GoError'
    this.op = op
  }
}

async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof Error) throw new GoError(op, e.message)
    throw new GoError(op, typeof e === 'string' ? e : JSON.stringify(e))
  }
}

export const api = {
  state: () => call('state', () => Go.State()),
  saveSettings: (s: Settings) => call('save settings', () => Go.SaveSettings(app.Settings.createFrom(s))),
  setAPIKey: (key: string) => call('set API key', () => Go.SetAPIKey(key)),
  forgetAPIKey: () => call('forget API key', () => Go.ForgetAPIKey()),
  useLocalServer: () => call('use local server', () => Go.UseLocalServer()),
}
