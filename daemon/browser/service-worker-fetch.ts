/**
 * A read-only site's service worker answers no page. An answer a service worker gives a page never passes the
 * tab's request interception, so a page it made would reach the tab without what a read-only site's page gets
 * at its document request (the in-realm guard: no WebSocket, no WebRTC): the write guard cannot see it coming.
 *
 * So every service worker gets, before its script runs (it is attached paused), a switch on its `fetch`
 * handlers: once off, they see no event and every request they would have answered goes to the network, where
 * the tab's rules meet it. It is off from the start for a worker of a read-only site (or one a read tab may have
 * made), and turned off in a running worker as soon as the user's rules make its site read-only, before the
 * change is acknowledged. It only ever turns off: the worker's own script can find the switch, which does it
 * no good. Its other work (push, sync, messages, its own requests) runs under the worker's rules
 * (worker-adoption.ts).
 */
import { randomBytes } from 'node:crypto';
import type { CdpConnection } from '../cdp/connection.js';
import type { HostAccessFn } from './write-guard.js';

/** Where the switch lives in a worker's global scope: a name no site knows in advance. */
const SWITCH = `__browserdFetchOff_${randomBytes(8).toString('hex')}`;

/**
 * Wraps each `fetch` listener of the worker's global scope (added by addEventListener, on the scope or through
 * EventTarget.prototype, or by `onfetch`) so that it returns at once when the switch is off, and installs the
 * switch. Non-configurable, so the worker's script cannot take the wrappers off.
 */
export function fetchSwitchScript(offNow: boolean): string {
  return `(() => {
  let off = ${offNow};
  const scope = globalThis, proto = EventTarget.prototype;
  const add = proto.addEventListener, remove = proto.removeEventListener;
  const wrapped = new WeakMap();
  const wrap = (listener) => {
    if (typeof listener !== 'function' && !(listener && typeof listener.handleEvent === 'function')) return listener;
    let w = wrapped.get(listener);
    if (!w) {
      w = function (e) { if (off) return; return typeof listener === 'function' ? listener.call(this, e) : listener.handleEvent(e); };
      wrapped.set(listener, w);
    }
    return w;
  };
  const isFetch = (target, type) => target === scope && String(type) === 'fetch';
  const fixed = (target, name, value) => Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });
  fixed(proto, 'addEventListener', function addEventListener(type, listener, ...rest) {
    return add.call(this, type, isFetch(this, type) ? wrap(listener) : listener, ...rest);
  });
  fixed(proto, 'removeEventListener', function removeEventListener(type, listener, ...rest) {
    return remove.call(this, type, isFetch(this, type) && listener ? wrapped.get(listener) ?? listener : listener, ...rest);
  });
  // onfetch as a listener of its own, so it passes the switch too; setting it again replaces the last one.
  let handler = null, added = null;
  Object.defineProperty(scope, 'onfetch', {
    get: () => handler,
    set: (h) => {
      if (added) remove.call(scope, 'fetch', added);
      handler = typeof h === 'function' ? h : null;
      added = handler && wrap(handler);
      if (added) add.call(scope, 'fetch', added);
    },
    configurable: false,
  });
  fixed(scope, ${JSON.stringify(SWITCH)}, () => { off = true; });
})()`;
}

/** The service workers running in one browser, by CDP session, with whether they still answer pages. */
export class RunningServiceWorkers {
  private readonly running = new Map<string, { url: string; fetchOff: boolean }>();

  constructor(private readonly conn: () => CdpConnection | undefined, private readonly hostAccess: HostAccessFn) {}

  /** Whether a worker of this address answers no page. */
  fetchOffFor(url: string): boolean {
    return this.hostAccess(url) === 'read_only';
  }

  started(session: string, url: string, fetchOff: boolean) {
    this.running.set(session, { url, fetchOff });
  }

  gone(session: string) {
    this.running.delete(session);
  }

  /** After a change to the user's rules: each running worker whose site is now read-only stops answering pages. */
  async rulesChanged(): Promise<void> {
    const conn = this.conn();
    if (!conn) return;
    const turning = [...this.running].filter(([, w]) => !w.fetchOff && this.fetchOffFor(w.url));
    await Promise.all(
      turning.map(async ([session, w]) => {
        w.fetchOff = true;
        await conn.sendMayFail('Runtime.evaluate', { expression: `globalThis[${JSON.stringify(SWITCH)}]()` }, session);
      }),
    );
  }
}
