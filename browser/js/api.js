// The walker's API, what the Go side calls. It is set last, once every
// module has run, and a frame that has it is not installed into again.

Object.defineProperty(globalThis, '__vroom', {
  value: { start: () => { watchMutations(); return true; }, planLook, settleLook, settleAgain, observe, read, resolve, prepare, recheck, fingerprint, maskedValues, settle, waitFor, check, focusedInfo, selectNative, findOption, fileInputOf, scrollInfo, frameBox, muts: () => S.muts, downs: () => S.downs, downOn: (ref) => { const el = resolve(ref), d = S.downAt && S.downAt.deref(); return !!(el && d && (d === el || composedContains(el, d))); }, frame: () => new Promise((r) => requestAnimationFrame(() => r(true))) },
});
