/**
 * What read mode cannot enforce from the network side, removed from every realm of a read tab before any page
 * script runs:
 * - WebSockets (and WebSocketStream, WebTransport): Fetch interception never sees a handshake. Handshakes are
 *   also cut off at the network in every session of the tab (network-cutoff.ts), which holds in worlds this
 *   script never runs in (isolated worlds a CDP client makes); removing the constructors here makes the
 *   refusal immediate and clear in the page.
 * - WebRTC: peer connections send UDP (STUN, TURN, data channels) straight from the browser, past both the
 *   write guard and the egress proxy.
 * - Shared workers: they are targets of the browser, not of the tab, and may be shared with other tabs; a read
 *   tab does not start or reach one.
 * - Service workers: a read tab registers none and talks to none (its requests bypass them as well).
 * - Writes on the way out: a document that is navigated away from (or closed) runs its pagehide,
 *   visibilitychange (to hidden), freeze and unload handlers after the next document committed, in a frame
 *   host that is no longer attached: neither interception nor network conditions see what they send (a
 *   keepalive fetch or beacon then reaches the site; seen on Chromium 156). So those events never reach the
 *   page's handlers, in any world (listeners of every world share one event path, and this capture listener on
 *   the window is the first on it). Beacons are always POSTs (writes), so sendBeacon becomes a plain POST that
 *   dies with its document.
 * Installed in the main world of every frame (Page.addScriptToEvaluateOnNewDocument also runs in fresh
 * about:blank iframes, so a page cannot fetch a clean constructor from a new frame) and in every worker, which is
 * attached paused and patched before it runs. The properties are non-configurable, so `delete` cannot bring the
 * originals back.
 */
export const READ_TAB_GUARD = `(() => {
  const refuse = (what) => function () { throw new DOMException(what + ' are blocked in a read-only tab', 'SecurityError'); };
  const remove = (target, name, value) => {
    try { Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false }); } catch {}
  };
  for (const name of ['WebSocket', 'WebSocketStream', 'WebTransport']) remove(globalThis, name, refuse('WebSockets'));
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceTransport', 'RTCSctpTransport', 'RTCRtpSender', 'RTCRtpReceiver']) {
    remove(globalThis, name, refuse('WebRTC connections'));
  }
  remove(globalThis, 'SharedWorker', refuse('Shared workers'));
  if (typeof navigator === 'object' && navigator && typeof navigator.sendBeacon === 'function' && typeof fetch === 'function') {
    // An ordinary POST instead, dropped with its document: the write guard refuses it (and reports it) while
    // the page lives, and nothing is left to go out after the page is gone.
    const post = fetch.bind(globalThis);
    remove(navigator, 'sendBeacon', function sendBeacon(url, data) {
      try { post(String(url), { method: 'POST', body: data ?? null, mode: 'no-cors', credentials: 'include' }).catch(() => {}); } catch {}
      return true;
    });
  }
  if (typeof Window === 'function' && globalThis instanceof Window) {
    const stop = (e) => e.stopImmediatePropagation();
    for (const type of ['pagehide', 'unload', 'freeze']) addEventListener(type, stop, true);
    // Becoming visible again is harmless (the document is live and its requests are seen); only hiding is stopped.
    addEventListener('visibilitychange', (e) => { if (document.visibilityState === 'hidden') stop(e); }, true);
  }
  if (typeof navigator === 'object' && navigator && 'serviceWorker' in navigator) remove(navigator, 'serviceWorker', undefined);
})();`;
