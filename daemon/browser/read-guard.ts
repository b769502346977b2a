/**
 * The one part of read mode that cannot be enforced from the network side: WebSockets. Fetch interception
 * never sees a WebSocket handshake and Network.setBlockedURLs does not stop one (checked on Chromium 156), so
 * read tabs remove the constructors from every realm before any page script runs: the main world of every
 * frame (Page.addScriptToEvaluateOnNewDocument also runs in fresh about:blank iframes, so a page cannot fetch a
 * clean constructor from a new frame) and every worker, which is attached paused and patched before it runs.
 * The properties are non-configurable, so `delete` cannot bring the original back.
 */
export const READ_TAB_GUARD = `(() => {
  const blocked = function WebSocket() { throw new DOMException('WebSockets are blocked in a read-only tab', 'SecurityError'); };
  for (const name of ['WebSocket', 'WebSocketStream', 'WebTransport']) {
    try { Object.defineProperty(globalThis, name, { value: blocked, writable: false, configurable: false, enumerable: false }); } catch {}
  }
})();`;
