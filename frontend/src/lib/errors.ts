// How the UI reports a failed call: the component that made it shows the
// error's text beside what the person did (role=alert), and takes it down
// when the next thing they do starts. Calls through api.ts fail with a
// GoError, whose message is what Go said.

/** Report shows a message where the call was made: '' takes the last one down. */
export type Report = (message: string) => void

/** errorText is what the person reads of a failure: an Error's message, or the thrown value as text. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message
  if (typeof e === 'string') return e
  try {
    return JSON.stringify(e) ?? String(e)
  } catch {
    // A value JSON cannot write (a cycle, a BigInt) still has a String form.
    return String(e)
  }
}

/**
 * attempt runs call as the UI runs every call the person starts: report('')
 * first (the last failure is taken down), then report(its text) if it
 * fails. It never rejects; it resolves to whether the call succeeded, so
 * what only follows success goes inside call or after a true.
 */
export async function attempt(report: Report, call: () => Promise<unknown>): Promise<boolean> {
  report('')
  try {
    await call()
    return true
  } catch (e) {
    report(errorText(e))
    return false
  }
}

/**
 * reporting is a rejection handler that reports the failure without
 * taking anything down first: for calls the person did not start (a
 * stream, a resize), whose earlier failure is still worth reading.
 */
export function reporting(report: Report): (e: unknown) => void {
  return (e) => report(errorText(e))
}
