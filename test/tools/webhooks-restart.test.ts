/**
 * A webhook survives the receiver and the daemon going down: the daemon runs as a child process; the receiver
 * fails the first attempt, then goes away; the daemon is killed with SIGKILL; the receiver comes back; the
 * daemon starts again on the same data dir and the pending row goes out at start with the same webhook-id and
 * the same body bytes, freshly signed.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childDaemon } from '../fixtures/child-daemon.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import { verifyWebhook } from '../../client/verify.js';


t.test('receiver down, kill -9, receiver back: the same id and body are delivered', async (t) => {
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-webhooks-restart-'));
  t.teardown(async () => {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const daemon = childDaemon(dataDir);
  const first = await daemon.serve();
  const hook = await daemon.call(first.url, 'POST', '/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['handoff.finished'] });
  t.equal(hook.status, 201);

  receiver.respond = 503;
  const made = await daemon.call(first.url, 'POST', '/v1/tools/browser_handoff', { message: 'sign in please' });
  const handoff = made.json.id as string;
  t.equal((await daemon.call(first.url, 'POST', '/v1/tools/browser_handoff_resolve', { id: handoff })).status, 200);
  await receiver.waitFor(() => receiver.calls.length >= 1);
  const before = receiver.calls[0]!;
  await receiver.down();

  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await exited;
  receiver.respond = 200;
  await receiver.up();

  const second = await daemon.serve();
  t.teardown(() => {
    second.child.kill('SIGTERM');
  });
  await receiver.waitFor(() => receiver.calls.length >= 2, 30_000);
  const after = receiver.calls.at(-1)!;
  t.equal(after.headers['webhook-id'], before.headers['webhook-id'], 'the same webhook-id');
  t.equal(after.body, before.body, 'the same body bytes');
  t.ok(Number(after.headers['webhook-timestamp']) >= Number(before.headers['webhook-timestamp']), 'a fresh timestamp');
  const event = verifyWebhook(hook.json.secret, after.headers as Record<string, string>, after.body);
  t.match(event, { type: 'handoff.finished', data: { id: handoff, status: 'resolved' } });
  // Delivered once the receiver answered 2xx; nothing more goes out after that.
  let row: any;
  for (let i = 0; i < 100 && row?.state !== 'delivered'; i++) {
    row = (await daemon.call(second.url, 'GET', `/v1/webhooks/${hook.json.id}/deliveries`)).json.deliveries[0];
    if (row?.state !== 'delivered') await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(row.state, 'delivered');
  t.equal(row.id, before.headers['webhook-id']);
  t.equal(row.lastStatus, 200);
  const exit = new Promise((r) => second.child.once('exit', r));
  second.child.kill('SIGTERM');
  await exit;
  t.equal(receiver.calls.filter((c) => c.headers['webhook-id'] === before.headers['webhook-id']).length, receiver.calls.length, 'only this row was ever sent');
});
