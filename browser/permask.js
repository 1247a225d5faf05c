// Asks the browser's holder before a page's request for a permission
// (location, notifications, camera, microphone) that was never granted nor
// denied: a headless Chromium would deny it without a word. The request
// waits for the answer (the setting the holder chose, made through the
// DevTools protocol), then goes to the real API, which follows it. A
// permission already granted or denied is not asked about again.
(() => {
  const ask = window.__vroomAskPermission;
  if (window.__vroomPermissions || typeof ask !== 'function') return;
  const waiting = new Map();
  let next = 0;
  Object.defineProperty(window, '__vroomPermissions', {
    value: (id) => {
      const done = waiting.get(id);
      waiting.delete(id);
      if (done) done();
    },
  });
  const state = async (name) => {
    try {
      return (await navigator.permissions.query({ name })).state;
    } catch {
      return 'prompt';
    }
  };
  // asked resolves once every permission in names was granted or denied.
  const asked = async (names) => {
    const states = await Promise.all(names.map(state));
    const open = names.filter((n, i) => states[i] === 'prompt');
    if (open.length === 0) return;
    const id = ++next;
    await new Promise((done) => {
      waiting.set(id, done);
      ask(JSON.stringify({ id, names: open, origin: location.origin }));
    });
  };
  const geo = navigator.geolocation;
  if (geo) {
    const get = geo.getCurrentPosition, watch = geo.watchPosition, clear = geo.clearWatch;
    const watches = new Map();
    let nextWatch = 0;
    geo.getCurrentPosition = function (...a) {
      asked(['geolocation']).then(() => get.apply(geo, a));
    };
    geo.watchPosition = function (...a) {
      const id = ++nextWatch;
      watches.set(id, null);
      asked(['geolocation']).then(() => {
        if (watches.has(id)) watches.set(id, watch.apply(geo, a));
      });
      return id;
    };
    geo.clearWatch = function (id) {
      const real = watches.get(id);
      watches.delete(id);
      if (real !== null && real !== undefined) clear.call(geo, real);
    };
  }
  if (window.Notification && Notification.requestPermission) {
    const request = Notification.requestPermission;
    Notification.requestPermission = async function (...a) {
      await asked(['notifications']);
      return request.apply(Notification, a);
    };
  }
  const media = navigator.mediaDevices;
  if (media && media.getUserMedia) {
    const gum = media.getUserMedia;
    media.getUserMedia = async function (c, ...a) {
      const names = [];
      if (c && c.audio) names.push('microphone');
      if (c && c.video) names.push('camera');
      await asked(names);
      return gum.call(media, c, ...a);
    };
  }
})();
