/** Per-session bookkeeping of in-flight commands, driven through a fake transport (no browser needed). */
import t from 'tap';
import { CdpConnection, CdpError } from '../../../daemon/cdp/connection.js';
import type { CdpTransport } from '../../../daemon/cdp/pipe-transport.js';

/** How a promise ended: 'resolved', or the CdpError kind it rejected with. */
const outcome = (p: Promise<unknown>) => p.then(() => 'resolved', (e) => (e instanceof CdpError ? e.kind : String(e)));

function fake() {
  const sent: any[] = [];
  const transport: CdpTransport = { send: (m) => void sent.push(JSON.parse(m)), close: () => transport.onClose?.('closed by the daemon') };
  const conn = new CdpConnection(transport);
  const deliver = (msg: unknown) => transport.onMessage!(JSON.stringify(msg));
  return { conn, sent, deliver, transport };
}

t.test('a detached session rejects its own in-flight commands and waits with kind closed, and no others', async (t) => {
  const { conn, sent, deliver } = fake();
  const onA = conn.send('Runtime.evaluate', { expression: '1' }, 'A');
  const onB = conn.send('Runtime.evaluate', { expression: '2' }, 'B');
  const waitA = conn.waitFor('Page.loadEventFired', 'A');
  let gone: unknown;
  conn.onSessionGone('A', (end) => (gone = end));
  deliver({ method: 'Target.detachedFromTarget', params: { sessionId: 'A', targetId: 'x' } });
  t.equal(await outcome(onA), 'closed');
  t.equal(await outcome(waitA), 'closed');
  t.match(gone, { kind: 'closed' });
  t.equal(await outcome(conn.send('Page.enable', {}, 'A')), 'closed', 'a gone session is refused at once');
  deliver({ id: sent.find((m) => m.sessionId === 'B').id, result: { result: { type: 'number', value: 2 } } });
  t.match(await onB, { result: { value: 2 } }, 'the other session is untouched');
});

t.test('a crashed target rejects in flight with kind crashed', async (t) => {
  const { conn, deliver } = fake();
  const p = conn.send('Runtime.evaluate', { expression: 'while(1);' }, 'S');
  const signal = conn.sessionSignal('S');
  deliver({ method: 'Inspector.targetCrashed', params: {}, sessionId: 'S' });
  const e = await p.catch((x) => x);
  t.ok(e instanceof CdpError && e.kind === 'crashed', String(e));
  t.ok(signal.signal.aborted, 'the session signal aborted');
});

t.test('the browser going away rejects everything with kind closed', async (t) => {
  const { conn, transport } = fake();
  const p = conn.send('Browser.getVersion');
  const w = conn.waitFor('Target.targetCreated', '');
  transport.onClose!('the browser closed its end of the CDP pipe');
  t.equal(await outcome(p), 'closed');
  t.equal(await outcome(w), 'closed');
  t.equal(await outcome(conn.waitFor('Target.targetCreated', '')), 'closed', 'a wait started afterwards fails at once');
});

t.test('after a crash only a reload or navigation goes out, until the target reports it reloaded', async (t) => {
  const { conn, sent, deliver } = fake();
  let sawCrash = false;
  conn.on('Inspector.targetCrashed', 'S', () => (sawCrash = true));
  const waitCrash = conn.waitFor('Inspector.targetCrashed', 'S');
  deliver({ method: 'Inspector.targetCrashed', params: {}, sessionId: 'S' });
  t.ok(sawCrash, 'listeners hear the crash');
  t.equal(await outcome(waitCrash), 'resolved', 'a wait for the crash itself is answered, not rejected');
  const before = sent.length;
  t.equal(await outcome(conn.send('Runtime.evaluate', { expression: '1' }, 'S')), 'crashed', 'refused at once instead of hanging');
  t.equal(sent.length, before, 'nothing was sent');
  const reload = conn.send('Page.reload', {}, 'S');
  t.equal(sent.length, before + 1, 'a reload goes out');
  deliver({ id: sent[sent.length - 1].id, result: {} });
  await reload;
  deliver({ method: 'Inspector.targetReloadedAfterCrash', params: {}, sessionId: 'S' });
  const again = conn.send('Runtime.evaluate', { expression: '1' }, 'S');
  deliver({ id: sent[sent.length - 1].id, result: { result: { type: 'number', value: 1 } } });
  t.equal(await outcome(again), 'resolved', 'commands flow again after the reload');
});
