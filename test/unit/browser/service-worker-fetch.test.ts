/**
 * The fetch switch a service worker gets before its script runs (daemon/browser/service-worker-fetch.ts): its
 * fetch handlers, however added, see events until the switch is turned off and none after; off from the start,
 * none ever. Run on a stand-in global scope (an EventTarget); test/tools/service-workers.test.ts shows it in
 * real workers.
 */
import t from 'tap';
import { fetchSwitchScript } from '../../../daemon/browser/service-worker-fetch.js';

/** A fresh stand-in scope with the script run on it; `off()` is what the daemon calls to turn it off. */
function scopeWith(offNow: boolean) {
  class Scope extends EventTarget {}
  const scope = new Scope() as Scope & { onfetch: ((e: Event) => void) | null } & Record<string, unknown>;
  // The script's `globalThis` and `EventTarget` are the stand-ins, so Node's own EventTarget is left alone.
  new Function('globalThis', 'EventTarget', fetchSwitchScript(offNow))(scope, Scope);
  const name = Object.getOwnPropertyNames(scope).find((n) => n.startsWith('__browserdFetchOff_'))!;
  return { scope, off: () => (scope[name] as () => void)(), fetch: () => scope.dispatchEvent(new Event('fetch')) };
}

t.test('handlers added every way see fetch events until the switch is off, and none after', async (t) => {
  const { scope, off, fetch } = scopeWith(false);
  const seen: string[] = [];
  scope.addEventListener('fetch', () => seen.push('listener'));
  scope.addEventListener('fetch', { handleEvent: () => seen.push('object') });
  scope.onfetch = () => seen.push('onfetch');
  scope.addEventListener('message', () => seen.push('message'));
  fetch();
  t.same(seen.sort(), ['listener', 'object', 'onfetch']);
  seen.length = 0;
  off();
  fetch();
  scope.dispatchEvent(new Event('message'));
  t.same(seen, ['message'], 'no fetch handler ran; other events still reach theirs');
});

t.test('off from the start: no fetch handler ever runs', async (t) => {
  const { scope, fetch } = scopeWith(true);
  let calls = 0;
  scope.addEventListener('fetch', () => calls++);
  scope.onfetch = () => calls++;
  fetch();
  t.equal(calls, 0);
});

t.test('onfetch set again replaces the last one; removeEventListener finds a wrapped listener', async (t) => {
  const { scope, fetch } = scopeWith(false);
  const seen: string[] = [];
  scope.onfetch = () => seen.push('first');
  scope.onfetch = () => seen.push('second');
  const listener = () => seen.push('listener');
  scope.addEventListener('fetch', listener);
  scope.removeEventListener('fetch', listener);
  fetch();
  t.same(seen, ['second']);
  scope.onfetch = null;
  seen.length = 0;
  fetch();
  t.same(seen, [], 'cleared');
});

t.test('the wrappers cannot be taken off by the worker', async (t) => {
  const { scope } = scopeWith(false);
  const proto = Object.getPrototypeOf(scope);
  t.throws(() => {
    'use strict';
    Object.defineProperty(proto, 'addEventListener', { value: () => undefined });
  });
  t.throws(() => Object.defineProperty(scope, 'onfetch', { value: null }));
});
