/**
 * The webhook service on a real LMDB with a loopback receiver, retry times shrunk: an emitted event is on disk
 * before emit resolves and arrives signed; failures (5xx, 4xx, 3xx, no answer, refused) are retried with the same
 * webhook-id and body bytes and a fresh timestamp, a redirect is never followed, a receiver that keeps failing is
 * probed rather than flooded, rows give up after the window, the address is checked again at each delivery,
 * one user's receivers are not another's, a deleted receiver gets nothing more, and the outbox is capped.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openDb, type Db } from '../../../storage/db.js';
import { Sealer } from '../../../storage/seal.js';
import { WebhookStore } from '../../../storage/webhooks.js';
import { WebhookService, type WebhookServiceOptions } from '../../../daemon/webhooks/service.js';
import { verifyWebhook } from '../../../client/verify.js';
import { startReceiver, type Receiver } from '../../fixtures/webhook-receiver.js';
import type { VetGuard } from '../../../daemon/net/vet.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-webhooks-'));
const db: Db = openDb(dir);
const sealer = new Sealer(randomBytes(32));
const store = new WebhookStore(db, () => sealer);
const receiver = await startReceiver();
const services: WebhookService[] = [];
t.teardown(async () => {
  for (const s of services) await s.stop();
  await receiver.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const fast = { baseMs: 60, maxDelayMs: 400, giveUpAfterMs: 60_000 };
/** A started service, stopped when the test `t` ends (each test's sender stays out of the next test's way). */
function service(t: { teardown(fn: () => unknown): void }, guard: VetGuard = { allowPrivateNetwork: true }, more: Partial<WebhookServiceOptions> = {}) {
  const s = new WebhookService({ store, guard, log: pino({ level: 'silent' }), version: 'test', retry: fast, timeoutMs: 1500, ...more });
  services.push(s);
  t.teardown(() => s.stop());
  s.start();
  return s;
}

const reset = (r: Receiver) => {
  r.calls.length = 0;
  r.respond = 200;
  r.location = undefined;
};

t.test('emit: rows on disk before it resolves, one signed call per receiver that takes the event', async (t) => {
  reset(receiver);
  const s = service(t);
  const all = await s.register('alice', { url: `${receiver.url}/all` });
  const handoffOnly = await s.register('alice', { url: `${receiver.url}/handoff`, events: ['handoff.finished'] });
  const bobs = await s.register('bob', { url: `${receiver.url}/bob` });
  t.match(all.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  t.match(all.id, /^wh_[0-9a-f]{16}$/);

  await s.emit('alice', 'download.finished', { n: 1 });
  // Durable at this point: the row is in the store before any delivery could finish.
  t.equal(store.rows('alice', all.id, { limit: 10 }).length, 1, 'a row for the receiver that takes every event');
  t.equal(store.rows('alice', handoffOnly.id, { limit: 10 }).length, 0, 'none for one that takes only handoff.finished');
  t.equal(store.rows('bob', bobs.id, { limit: 10 }).length, 0, "none for another user's receiver");
  await receiver.waitFor(() => receiver.calls.length === 1);
  const call = receiver.calls[0]!;
  t.equal(call.path, '/all');
  t.equal(call.headers['content-type'], 'application/json');
  const event = verifyWebhook(all.secret, call.headers as Record<string, string>, call.body);
  t.same(event.data, { n: 1 });
  t.equal(event.type, 'download.finished');
  t.throws(() => verifyWebhook(handoffOnly.secret, call.headers as Record<string, string>, call.body), 'not valid under another receiver\'s secret');
  await t.resolves(waitState(s, 'alice', all.id, 'delivered'));
  // The row's state is read from the store, which the reader may see committed a moment before the service
  // has counted the row settled.
  await t.resolves(until(() => s.list('alice').find((w) => w.id === all.id)?.pending === 0), 'nothing pending');
  for (const w of s.list('alice')) t.notOk('secret' in w, 'no secret in a listing');
  await s.delete('alice', all.id);
  await s.delete('alice', handoffOnly.id);
  await s.delete('bob', bobs.id);
});

/** Polls `ok` until it holds (10 s at most). */
async function until(ok: () => boolean, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error('did not come to hold in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls the store's state of the receiver's newest row: rows settle after the call the receiver saw. */
async function waitState(s: WebhookService, user: string, id: string, state: string, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const d = s.deliveries(user, id, { limit: 1 })[0] as { state: string } | undefined;
    if (d?.state === state) return d;
    if (Date.now() > end) throw new Error(`row is ${d?.state}, not ${state}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('failures are retried: same id and body bytes, a fresh timestamp; only a 2xx counts', async (t) => {
  reset(receiver);
  const s = service(t);
  const w = await s.register('carol', { url: `${receiver.url}/retry` });
  receiver.respond = 500;
  await s.emit('carol', 'monitor.changed', { url: 'https://example.com/', changed: true });
  await receiver.waitFor(() => receiver.calls.length >= 2);
  receiver.respond = 404;
  await receiver.waitFor(() => receiver.calls.length >= 3);
  receiver.respond = 204;
  await receiver.waitFor(() => receiver.calls.length >= 4);
  const d = (await waitState(s, 'carol', w.id, 'delivered')) as any;
  const calls = receiver.calls;
  t.equal(calls.length, 4, 'no call after the 2xx');
  t.equal(new Set(calls.map((c) => c.headers['webhook-id'])).size, 1, 'one webhook-id on every attempt');
  t.equal(calls[0]!.headers['webhook-id'], d.id, 'the id the deliveries list shows');
  t.equal(new Set(calls.map((c) => c.body)).size, 1, 'the same body bytes on every attempt');
  for (const c of calls) t.ok(verifyWebhook(w.secret, c.headers as Record<string, string>, c.body), 'each attempt signed');
  t.ok(calls.every((c, i) => i === 0 || c.at - calls[i - 1]!.at >= fast.baseMs * 0.8 - 5), 'attempts spaced by the retry delay');
  t.equal(d.attempts, 4);
  t.same(d.history.map((a: any) => a.status).slice(-1), [204]);
  t.ok(d.history.slice(0, -1).every((a: any) => a.status === 500 || a.status === 404));
});

t.test('a 3xx is a failed attempt: the Location is never followed', async (t) => {
  reset(receiver);
  const s = service(t);
  const w = await s.register('dave', { url: `${receiver.url}/moved` });
  receiver.respond = 307;
  receiver.location = `${receiver.url}/elsewhere`;
  await s.emit('dave', 'task.finished', { ok: true });
  await receiver.waitFor(() => receiver.calls.length >= 2);
  t.ok(receiver.calls.every((c) => c.path === '/moved'), 'every call to the registered path, none to the Location');
  const d = s.deliveries('dave', w.id, { limit: 1 })[0] as any;
  t.equal(d.state, 'pending');
  t.equal(d.lastStatus, 307);
  await s.delete('dave', w.id);
});

t.test('no answer in time and connection refused are failures; the receiver coming back gets the row', async (t) => {
  reset(receiver);
  const s = service(t, undefined, { timeoutMs: 300 });
  const w = await s.register('erin', { url: `${receiver.url}/slow` });
  receiver.respond = 'hang';
  await s.emit('erin', 'replay.finished', { id: 'rpl_1' });
  await receiver.waitFor(() => receiver.calls.length >= 1);
  const timedOut = await waitFor(() => (s.deliveries('erin', w.id, { limit: 1 })[0] as any)?.lastError);
  t.match(timedOut, /no answer/);
  await receiver.down();
  const refused = await waitFor(() => ((s.deliveries('erin', w.id, { limit: 1 })[0] as any)?.lastError === 'ECONNREFUSED' ? 'ECONNREFUSED' : undefined));
  t.equal(refused, 'ECONNREFUSED');
  receiver.respond = 200;
  const before = receiver.calls.length;
  await receiver.up();
  await receiver.waitFor(() => receiver.calls.length > before);
  const d = (await waitState(s, 'erin', w.id, 'delivered')) as any;
  t.equal(receiver.calls.at(-1)!.headers['webhook-id'], d.id);
  t.equal(receiver.calls.at(-1)!.body, receiver.calls[0]!.body);
  await s.delete('erin', w.id);
});

async function waitFor<T>(fn: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('a failing receiver is probed one row at a time, not sent every pending row', async (t) => {
  reset(receiver);
  const s = service(t);
  const w = await s.register('fay', { url: `${receiver.url}/down` });
  receiver.respond = 503;
  for (let i = 0; i < 50; i++) await s.emit('fay', 'task.finished', { i });
  await new Promise((r) => setTimeout(r, 600));
  t.ok(receiver.calls.length < 15, `${receiver.calls.length} calls for 50 pending rows while failing`);
  receiver.respond = 200;
  await receiver.waitFor(() => new Set(receiver.calls.map((c) => c.headers['webhook-id'])).size === 50, 15_000);
  await waitFor(() => s.list('fay')[0]!.pending === 0);
  t.equal(s.list('fay')[0]!.pending, 0, 'all 50 drained once it answers');
  t.equal((s.deliveries('fay', w.id, { limit: 100, state: 'delivered' }) as any[]).length, 50);
  await s.delete('fay', w.id);
});

t.test('a row past its window is failed, not tried forever', async (t) => {
  reset(receiver);
  const s = service(t, undefined, { retry: { baseMs: 50, maxDelayMs: 100, giveUpAfterMs: 400 } });
  const w = await s.register('gus', { url: `${receiver.url}/gone` });
  receiver.respond = 500;
  await s.emit('gus', 'task.finished', {});
  const d = (await waitState(s, 'gus', w.id, 'failed')) as any;
  t.ok(d.attempts >= 2, `${d.attempts} attempts before giving up`);
  t.ok(d.finishedAt);
  t.notOk(store.row('gus', w.id, d.id)?.body, 'a finished row keeps no body');
  await s.delete('gus', w.id);
});

t.test('receiver addresses: refused at registration without an allowance, checked again at each delivery', async (t) => {
  reset(receiver);
  const guard: VetGuard = { allowPrivateNetwork: false };
  const s = service(t, guard);
  await t.rejects(s.register('hal', { url: `${receiver.url}/x` }), { code: 'blocked' }, 'loopback without an allowance');
  await t.rejects(s.register('hal', { url: 'http://localhost:1/x' }), { code: 'blocked' }, 'localhost too');
  await t.rejects(s.register('hal', { url: 'http://169.254.169.254/latest' }), { code: 'blocked' }, 'link-local (metadata)');
  await t.rejects(s.register('hal', { url: 'http://[::ffff:127.0.0.1]:80/' }), { code: 'blocked' }, 'mapped loopback');
  await t.rejects(s.register('hal', { url: 'ftp://example.com/' }), { code: 'validation_error' });
  await t.rejects(s.register('hal', { url: 'http://u:p@example.com/' }), { code: 'validation_error' });
  await t.rejects(s.register('hal', { url: `${receiver.url}/x`, events: ['nope'] }), { code: 'validation_error', message: /nope/ });
  await t.rejects(s.register('hal', { url: `${receiver.url}/x`, extra: 1 }), { code: 'validation_error' });
  t.same(s.list('hal'), [], 'nothing stored by a refusal');
  // One exact target allowed (BROWSERD_ALLOW_TARGETS): that address and port only.
  guard.allowTargets = [`127.0.0.1:${receiver.port}`];
  const w = await s.register('hal', { url: `${receiver.url}/ok` });
  await t.rejects(s.register('hal', { url: `http://127.0.0.1:${receiver.port + 1}/` }), { code: 'blocked' }, 'another port is not allowed');
  // The allowance withdrawn after registration: the delivery is refused before any connection.
  guard.allowTargets = [];
  await s.emit('hal', 'task.finished', {});
  const d = await waitFor(() => (s.deliveries('hal', w.id, { limit: 1 })[0] as any)?.lastError && (s.deliveries('hal', w.id, { limit: 1 })[0] as any));
  t.match(d.lastError, /loopback address/);
  t.equal(receiver.calls.length, 0, 'nothing reached the receiver');
  guard.allowTargets = [`127.0.0.1:${receiver.port}`];
  await receiver.waitFor(() => receiver.calls.length === 1);
  await s.delete('hal', w.id);
});

t.test('a name is resolved at each delivery and only the checked address is connected to', async (t) => {
  reset(receiver);
  let answer = '127.0.0.1';
  const guard: VetGuard = { allowPrivateNetwork: false, allowTargets: [`127.0.0.1:${receiver.port}`], lookup: async () => [{ address: answer }] };
  const s = service(t, guard);
  const w = await s.register('ivy', { url: `http://hooks.example:${receiver.port}/named` });
  await s.emit('ivy', 'task.finished', { n: 1 });
  await receiver.waitFor(() => receiver.calls.length === 1);
  t.equal(receiver.calls[0]!.headers.host, `hooks.example:${receiver.port}`, 'the name in Host, the checked address connected');
  // The name now answers a private address: refused at delivery, no connection made.
  answer = '10.1.2.3';
  await s.emit('ivy', 'task.finished', { n: 2 });
  const d = await waitFor(() => {
    const row = s.deliveries('ivy', w.id, { limit: 1 })[0] as any;
    return row?.lastError ? row : undefined;
  });
  t.match(d.lastError, /private address/);
  t.equal(receiver.calls.length, 1);
  await s.delete('ivy', w.id);
});

t.test('users, deletion and the outbox cap', async (t) => {
  reset(receiver);
  const s = service(t, undefined, { maxPendingPerReceiver: 3 });
  const w = await s.register('jay', { url: `${receiver.url}/cap` });
  t.throws(() => s.deliveries('kim', w.id, { limit: 5 }), { code: 'not_found' }, "another user's receiver is not found");
  await t.rejects(s.delete('kim', w.id), { code: 'not_found' });
  receiver.respond = 'hang';
  for (let i = 0; i < 5; i++) await s.emit('jay', 'task.finished', { i });
  const rows = s.deliveries('jay', w.id, { limit: 10 }) as any[];
  t.equal(rows.filter((r) => r.state === 'failed' && /outbox full/.test(r.lastError)).length, 2, 'past the cap, events are recorded failed at once');
  t.equal(s.list('jay')[0]!.pending, 3);
  await s.delete('jay', w.id);
  t.same(s.list('jay'), []);
  t.equal(store.pendingCount('jay', w.id), 0, 'its pending rows are gone');
  t.same(store.rows('jay', w.id, { limit: 10 }), []);
  await s.emit('jay', 'task.finished', {});
  t.same(store.rows('jay', w.id, { limit: 10 }), [], 'no row for a deleted receiver');
});

t.test('a new service on the same store sends rows that were due while none ran', async (t) => {
  reset(receiver);
  const first = service(t);
  const w = await first.register('lou', { url: `${receiver.url}/later` });
  await receiver.down();
  await first.emit('lou', 'download.finished', { name: 'a.pdf' });
  await waitFor(() => (first.deliveries('lou', w.id, { limit: 1 })[0] as any)?.attempts >= 1);
  await first.stop();
  const rowId = (first.deliveries('lou', w.id, { limit: 1 })[0] as any).id;
  await receiver.up();
  const second = service(t);
  await receiver.waitFor(() => receiver.calls.length === 1);
  t.equal(receiver.calls[0]!.headers['webhook-id'], rowId, 'the same id after a restart');
  await waitState(second, 'lou', w.id, 'delivered');
});
