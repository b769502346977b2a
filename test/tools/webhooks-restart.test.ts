/**
 * A webhook survives the receiver and the daemon going down: the daemon runs as a child process; the receiver
 * fails the first attempt, then goes away; the daemon is killed with SIGKILL; the receiver comes back; the
 * daemon starts again on the same data dir and the pending row goes out at start with the same webhook-id and
 * the same body bytes, freshly signed.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREDENTIALS_FILE } from '../../bin/credentials-file.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import { verifyWebhook } from '../../client/verify.js';

/** Starts `browserd serve` on the data dir; resolves with its base URL once it listens. */
function serve(dataDir: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['bin/browserd.js', 'serve', '--listen', '127.0.0.1:0', '--data', dataDir], {
    env: { ...process.env, BROWSERD_ALLOW_PRIVATE_NETWORK: '1', BROWSERD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /browserd (http:\/\/127\.0\.0\.1:\d+) \(MCP/.exec(out);
      if (m) resolve({ child, base: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`browserd exited (${code}) before listening: ${out}`)));
  });
}

t.test('receiver down, kill -9, receiver back: the same id and body are delivered', async (t) => {
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-webhooks-restart-'));
  t.teardown(async () => {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const first = await serve(dataDir);
  const token = /^token=(.+)$/m.exec(readFileSync(join(dataDir, CREDENTIALS_FILE), 'utf8'))![1]!;
  const api = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };
  const hook = await api(first.base, 'POST', '/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['handoff.finished'] });
  t.equal(hook.status, 201);

  receiver.respond = 503;
  const made = await api(first.base, 'POST', '/v1/tools/browser_handoff', { message: 'sign in please' });
  const handoff = made.json.id as string;
  t.equal((await api(first.base, 'POST', '/v1/tools/browser_handoff_resolve', { id: handoff })).status, 200);
  await receiver.waitFor(() => receiver.calls.length >= 1);
  const before = receiver.calls[0]!;
  await receiver.down();

  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await exited;
  receiver.respond = 200;
  await receiver.up();

  const second = await serve(dataDir);
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
    row = (await api(second.base, 'GET', `/v1/webhooks/${hook.json.id}/deliveries`)).json.deliveries[0];
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
