/**
 * The recorder against Chromium's event orders that a live page shows only now and then: the headers really
 * sent (requestWillBeSentExtraInfo) may come after the response, or before their own hop of a redirect.
 * Events are fed straight to the recorder's handlers, in the order each test names.
 */
import t from 'tap';
import { DisposableStore, type CdpConnection } from '../../../daemon/cdp/connection.js';
import { TrafficRecorder } from '../../../daemon/browser/traffic-recorder.js';
import type { Exchange } from '../../../daemon/browser/traffic-types.js';

type Handler = (p: any) => void;

function harness() {
  const handlers = new Map<string, Handler>();
  const conn = {
    on: (event: string, _session: string, listener: Handler) => {
      handlers.set(event, listener);
      return { dispose: () => handlers.delete(event) };
    },
    sendMayFail: async () => undefined,
  } as unknown as CdpConnection;
  const recorder = new TrafficRecorder(conn);
  recorder.listen('S', new DisposableStore());
  const done: Exchange[] = [];
  recorder.subscribe({ done: (ex) => void done.push(structuredClone(ex)) });
  const fire = (event: string, p: any) => handlers.get(`Network.${event}`)!(p);
  return { fire, done };
}

const sent = (requestId: string, url: string, redirectResponse?: object) => ({
  requestId, type: 'Fetch', timestamp: 1, wallTime: 1_700_000_000, frameId: 'F',
  request: { url, method: 'GET', headers: { 'x-as-asked': '1' } },
  ...(redirectResponse ? { redirectResponse } : {}),
});
const response = (status: number) => ({ url: 'x', status, statusText: '', headers: {}, mimeType: 'application/json', encodedDataLength: 0 });
const extra = (requestId: string, cookie: string) => ({ requestId, headers: { cookie } });

t.test('headers that come after the response still replace the ones the page asked for', async (t) => {
  const { fire, done } = harness();
  fire('requestWillBeSent', sent('1', 'http://a.test/api'));
  fire('responseReceived', { requestId: '1', type: 'Fetch', response: response(200) });
  fire('requestWillBeSentExtraInfo', extra('1', 'sid=late'));
  fire('loadingFinished', { requestId: '1', timestamp: 2, encodedDataLength: 10 });
  t.equal(done.length, 1);
  t.same(done[0]!.request.headers, { cookie: 'sid=late' });
});

t.test('headers that come before their request are kept for it', async (t) => {
  const { fire, done } = harness();
  fire('requestWillBeSentExtraInfo', extra('1', 'sid=early'));
  fire('requestWillBeSent', sent('1', 'http://a.test/api'));
  fire('responseReceived', { requestId: '1', type: 'Fetch', response: response(200) });
  fire('loadingFinished', { requestId: '1', timestamp: 2, encodedDataLength: 10 });
  t.same(done[0]!.request.headers, { cookie: 'sid=early' });
});

t.test('a redirect: each hop gets its own headers, whichever comes first', async (t) => {
  const { fire, done } = harness();
  fire('requestWillBeSent', sent('1', 'http://a.test/old'));
  // The second hop's headers come before the event that starts it, and the first hop's after both.
  fire('requestWillBeSent', sent('1', 'http://a.test/new', response(302)));
  fire('requestWillBeSentExtraInfo', extra('1', 'hop=1'));
  fire('requestWillBeSentExtraInfo', extra('1', 'hop=2'));
  fire('responseReceived', { requestId: '1', type: 'Fetch', response: response(200) });
  fire('loadingFinished', { requestId: '1', timestamp: 2, encodedDataLength: 10 });
  t.same(done.map((e) => [e.request.url, e.response?.status]), [['http://a.test/old', 302], ['http://a.test/new', 200]]);
  // The first hop went out before its headers came: what it carried is known only for the second.
  t.same(done[1]!.request.headers, { cookie: 'hop=2' });

  const again = harness();
  again.fire('requestWillBeSent', sent('2', 'http://a.test/old'));
  again.fire('requestWillBeSentExtraInfo', extra('2', 'hop=1'));
  again.fire('requestWillBeSentExtraInfo', extra('2', 'hop=2'));
  again.fire('requestWillBeSent', sent('2', 'http://a.test/new', response(302)));
  again.fire('loadingFinished', { requestId: '2', timestamp: 2, encodedDataLength: 10 });
  t.same(again.done.map((e) => e.request.headers), [{ cookie: 'hop=1' }, { cookie: 'hop=2' }]);
});
