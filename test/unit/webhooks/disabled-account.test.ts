/**
 * Webhook deliveries of a disabled account wait: rows already queued are neither sent nor given up while it is
 * disabled (however long), and go out once it is enabled again, with a whole retry window from then. Only an
 * account that no longer exists has its receivers and rows dropped. Real LMDB, a loopback receiver, a clock
 * moved by hand so a two-day hold takes no time.
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
import { WebhookService, type AccountState } from '../../../daemon/webhooks/service.js';
import { startReceiver } from '../../fixtures/webhook-receiver.js';

const DAY = 24 * 3600_000;
const dir = mkdtempSync(join(tmpdir(), 'browserd-webhooks-disabled-'));
const db: Db = openDb(dir);
const sealer = new Sealer(randomBytes(32));
const store = new WebhookStore(db, () => sealer);
const receiver = await startReceiver();
t.teardown(async () => {
  await receiver.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** A service whose accounts and clock the test sets. */
function service(t: { teardown(fn: () => unknown): void }) {
  const accounts = new Map<string, AccountState>();
  let offset = 0;
  const s = new WebhookService({
    store,
    guard: { allowPrivateNetwork: true },
    log: pino({ level: 'silent' }),
    version: 'test',
    retry: { baseMs: 40, maxDelayMs: 200, giveUpAfterMs: 60_000 },
    timeoutMs: 1500,
    now: () => Date.now() + offset,
    account: (u) => accounts.get(u) ?? 'active',
    accountRecheckMs: 30,
  });
  t.teardown(() => s.stop());
  s.start();
  return { s, accounts, later: (ms: number) => (offset += ms) };
}

const callsTo = (path: string) => receiver.calls.filter((c) => c.path === path);

/** Polls the store (rows settle after the call the receiver saw). */
async function until(pred: () => boolean, what: string) {
  const end = Date.now() + 20_000;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`not reached: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('a disabled account: queued rows are not sent nor given up; enabled again, they go out', async (t) => {
  receiver.calls.length = 0;
  receiver.respond = 200;
  const { s, accounts, later } = service(t);
  const alice = await s.register('alice', { url: `${receiver.url}/alice` });
  const bob = await s.register('bob', { url: `${receiver.url}/bob` });

  accounts.set('alice', 'disabled');
  await s.emit('alice', 'task.finished', { id: 'task_1' });
  // bob's row is queued after alice's and goes out in the same pass: once it is delivered, the sender has
  // had its chance at alice's too.
  await s.emit('bob', 'task.finished', { id: 'task_2' });
  await until(() => s.deliveries('bob', bob.id, { limit: 1 })[0]?.state === 'delivered', "bob's row delivered");
  t.same(callsTo('/alice'), [], 'nothing sent for the disabled account');
  const held = s.deliveries('alice', alice.id, { limit: 10 });
  t.equal(held.length, 1, 'its row is kept');
  t.match(held[0], { state: 'pending', attempts: 0 }, 'pending, never tried');

  // Two days disabled: far past the window a row would be given up in.
  later(2 * DAY);
  await s.emit('bob', 'task.finished', { id: 'task_3' });
  await until(() => callsTo('/bob').length === 2, "bob's second row");
  t.same(callsTo('/alice'), [], 'still nothing for the disabled account');
  t.equal(s.deliveries('alice', alice.id, { limit: 1 })[0]!.state, 'pending', 'still pending after two days');

  // Enabled again with the receiver failing at first: the row gets a window of its own, not given up at once.
  receiver.respond = 500;
  accounts.set('alice', 'active');
  await receiver.waitFor(() => callsTo('/alice').length >= 2);
  t.equal(s.deliveries('alice', alice.id, { limit: 1 })[0]!.state, 'pending', 'a failed try after the hold is retried, not given up');
  receiver.respond = 200;
  await until(() => s.deliveries('alice', alice.id, { limit: 1 })[0]?.state === 'delivered', "alice's row delivered");
  const sent = callsTo('/alice');
  t.same(JSON.parse(sent[sent.length - 1]!.body).data, { id: 'task_1' }, 'the event queued while disabled arrives');
  await s.delete('alice', alice.id);
  await s.delete('bob', bob.id);
});

t.test('an account disabled while its row is being retried: the next try waits for it', async (t) => {
  receiver.calls.length = 0;
  receiver.respond = 503;
  const { s, accounts } = service(t);
  const w = await s.register('carol', { url: `${receiver.url}/carol` });
  await s.emit('carol', 'monitor.changed', { n: 1 });
  await receiver.waitFor(() => callsTo('/carol').length >= 1);
  accounts.set('carol', 'disabled');
  receiver.respond = 200;
  const tried = callsTo('/carol').length;
  // Another user's traffic proves the sender is running meanwhile.
  const dave = await s.register('dave', { url: `${receiver.url}/dave` });
  for (let i = 0; i < 3; i++) {
    await s.emit('dave', 'monitor.changed', { i });
    await receiver.waitFor(() => callsTo('/dave').length === i + 1);
  }
  // A try already on the wire when the account was disabled may land; none starts after it.
  t.ok(callsTo('/carol').length <= tried + 1, 'no new try for the disabled account');
  t.equal(s.deliveries('carol', w.id, { limit: 1 })[0]!.state, 'pending', 'the row waits');
  accounts.set('carol', 'active');
  await until(() => s.deliveries('carol', w.id, { limit: 1 })[0]?.state === 'delivered', 'delivered once enabled');
  await s.delete('carol', w.id);
  await s.delete('dave', dave.id);
});

t.test('an account that no longer exists: its receivers and queued rows are dropped, nothing sent', async (t) => {
  receiver.calls.length = 0;
  receiver.respond = 200;
  const { s, accounts } = service(t);
  const w = await s.register('erin', { url: `${receiver.url}/erin` });
  accounts.set('erin', 'gone');
  await s.emit('erin', 'download.finished', { n: 1 });
  await until(() => !store.receiver('erin', w.id) && store.rows('erin', w.id, { limit: 10 }).length === 0, 'the receiver and its rows dropped');
  t.same(s.list('erin'), [], 'no receiver left');
  t.same(callsTo('/erin'), [], 'nothing was sent');
});
