/**
 * Webhooks end to end on a real daemon run WITHOUT the private-network allowance, only exact targets allowed
 * (BROWSERD_ALLOW_TARGETS: the receiver's and the fixture site's address:port): a loopback receiver on another
 * port is refused `blocked`; the secret is answered once and never listed, audited or logged; a resolved
 * hand-off and a page download arrive as signed events the client's verifyWebhook accepts; a redirecting receiver
 * is never followed; another user's webhook is not_found.
 */
import t from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { verifyWebhook } from '../../client/verify.js';

let d: TestDaemon;
let site: FixtureSite;
let receiver: Receiver;
let other: Receiver;
let alice: string;
let bob: string;

t.before(async () => {
  site = await startSite();
  receiver = await startReceiver();
  other = await startReceiver();
  d = await startTestDaemon({ allowPrivateNetwork: false, allowTargets: [`127.0.0.1:${receiver.port}`, `127.0.0.1:${site.port}`] });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(async () => {
  await d?.stop();
  await site?.close();
  await receiver?.close();
  await other?.close();
});

const reset = () => {
  receiver.calls.length = 0;
  receiver.respond = 200;
  receiver.location = undefined;
};

async function deliveries(token: string, id: string, query = '') {
  return d.rest(token, 'GET', `/v1/webhooks/${id}/deliveries${query}`);
}

/** Polls the deliveries route until the newest row is in `state` (rows settle just after the call arrives). */
async function settled(token: string, id: string, state: string) {
  for (let i = 0; i < 200; i++) {
    const r = await deliveries(token, id, '?limit=1');
    if (r.json.deliveries?.[0]?.state === state) return r.json.deliveries[0];
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no ${state} delivery`);
}

t.test('registration: allowed target only, bad input refused with nothing stored', async (t) => {
  const refused = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${other.url}/hooks` });
  t.equal(refused.status, 403);
  t.equal(refused.json.error.code, 'blocked');
  t.match(refused.json.error.message, /loopback/);
  t.match(refused.json.error.next, /BROWSERD_ALLOW_TARGETS/);
  for (const [body, field] of [[{}, /url/], [{ url: 'file:///etc/passwd' }, /url/], [{ url: `${receiver.url}/h`, events: [] }, /events/], [{ url: `${receiver.url}/h`, events: ['page.loaded'] }, /page\.loaded/], [{ url: `${receiver.url}/h`, secret: 'mine' }, /secret/]] as const) {
    const r = await d.rest(alice, 'POST', '/v1/webhooks', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.json.error.message, field);
  }
  const own = await d.rest(alice, 'POST', '/v1/webhooks', { url: `http://127.0.0.1:${d.daemon.port}/v1/me` });
  t.equal(own.status, 403, "the daemon's own port is never a receiver");
  t.same((await d.rest(alice, 'GET', '/v1/webhooks')).json.webhooks, [], 'nothing stored by any refusal');
});

t.test('the secret: in the POST answer only; never listed, audited or logged', async (t) => {
  const created = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${receiver.url}/hooks?token=receiver-own-token`, events: ['handoff.finished'] });
  t.equal(created.status, 201, created.json.error?.message);
  const { id, secret } = created.json;
  t.match(id, /^wh_[0-9a-f]{16}$/);
  t.match(secret, /^whsec_/);
  t.same(created.json.events, ['handoff.finished']);
  const listed = await d.rest(alice, 'GET', '/v1/webhooks');
  t.equal(listed.json.webhooks.length, 1);
  t.same(Object.keys(listed.json.webhooks[0]).sort(), ['createdAt', 'events', 'id', 'pending', 'url']);
  const key = secret.slice('whsec_'.length);
  t.notOk(JSON.stringify(listed.json).includes(key), 'not in GET /v1/webhooks');
  t.notOk(JSON.stringify((await deliveries(alice, id)).json).includes(key), 'not in deliveries');
  const audit = (await d.rest(alice, 'GET', '/v1/audit?limit=50')).json.entries as any[];
  const create = audit.find((e) => e.tool === 'webhook_create' && e.outcome === 'ok');
  t.ok(create, 'the registration is audited');
  t.same(create.args, { url: `${receiver.url}/hooks`, events: ['handoff.finished'] }, 'by URL without its query, and events');
  t.notOk(JSON.stringify(audit).includes(key), 'not in the audit log');
  t.notOk(d.logLines.some((l) => l.includes(key)), 'not in any log line');
  t.notOk(JSON.stringify(audit).includes('receiver-own-token'), "the receiver's own query token is not audited");
});

t.test("handoff.finished: a signed event the client verifies, with the hand-off's outcome", async (t) => {
  reset();
  const hook = (await d.rest(alice, 'GET', '/v1/webhooks')).json.webhooks[0];
  const created = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${receiver.url}/all` });
  const made = await d.rest(alice, 'POST', '/v1/tools/browser_handoff', { message: 'Please solve the puzzle', expiresInS: 600 });
  t.equal(made.status, 200, JSON.stringify(made.json));
  const handoff = made.json.id ?? made.json.handoff?.id;
  t.match(handoff, /^ho_/);
  t.equal(receiver.calls.length, 0, 'nothing before it finishes');
  const resolved = await d.rest(alice, 'POST', '/v1/tools/browser_handoff_resolve', { id: handoff, note: 'done by the agent' });
  t.equal(resolved.status, 200, JSON.stringify(resolved.json));
  // Durable before the resolve answered: both rows are already in the outbox.
  t.equal((await deliveries(alice, hook.id)).json.deliveries.length, 1);
  t.equal((await deliveries(alice, created.json.id)).json.deliveries.length, 1);
  await receiver.waitFor(() => receiver.calls.length === 2);
  const byPath = Object.fromEntries(receiver.calls.map((c) => [c.path.split('?')[0], c]));
  const event = verifyWebhook(created.json.secret, byPath['/all']!.headers as Record<string, string>, byPath['/all']!.body);
  t.equal(event.type, 'handoff.finished');
  t.match(event.data, { id: handoff, status: 'resolved', resolvedBy: 'agent', note: 'done by the agent' });
  t.ok(Math.abs(Date.parse(event.timestamp) - Date.now()) < 60_000);
  t.equal(byPath['/hooks']!.path, '/hooks?token=receiver-own-token', 'the query of the registered URL is kept');
  t.throws(() => verifyWebhook(created.json.secret, byPath['/hooks']!.headers as Record<string, string>, byPath['/hooks']!.body), 'each receiver signs with its own secret');
  const d1 = await settled(alice, created.json.id, 'delivered');
  t.equal(d1.id, byPath['/all']!.headers['webhook-id']);
  t.equal(d1.attempts, 1);
  t.equal(d1.lastStatus, 200);
  await d.rest(alice, 'DELETE', `/v1/webhooks/${hook.id}`);
  await d.rest(alice, 'DELETE', `/v1/webhooks/${created.json.id}`);
});

t.test('a redirecting receiver: the Location is never followed, the row stays pending', async (t) => {
  reset();
  const created = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${receiver.url}/old`, events: ['handoff.finished'] });
  receiver.respond = 302;
  receiver.location = `${site.url}/stolen`;
  const made = await d.rest(alice, 'POST', '/v1/tools/browser_handoff', { message: 'again' });
  await d.rest(alice, 'POST', '/v1/tools/browser_handoff_resolve', { id: made.json.id ?? made.json.handoff?.id });
  await receiver.waitFor(() => receiver.calls.length >= 2);
  t.ok(receiver.calls.every((c) => c.path === '/old'));
  t.notOk(site.requests.some((r) => r.path === '/stolen'), 'nothing went to the Location');
  const row = (await deliveries(alice, created.json.id)).json.deliveries[0];
  t.equal(row.state, 'pending');
  t.equal(row.lastStatus, 302);
  t.ok(row.nextAttemptAt);
  t.equal((await deliveries(alice, created.json.id, '?state=delivered')).json.deliveries.length, 0);
  await d.rest(alice, 'DELETE', `/v1/webhooks/${created.json.id}`);
});

t.test("another user's webhook is not found; malformed ids and parameters are refused", async (t) => {
  const created = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${receiver.url}/mine`, events: ['task.finished'] });
  const id = created.json.id;
  t.equal((await deliveries(bob, id)).status, 404);
  t.equal((await deliveries(bob, id)).json.error.code, 'not_found');
  t.equal((await d.rest(bob, 'DELETE', `/v1/webhooks/${id}`)).status, 404);
  t.same((await d.rest(bob, 'GET', '/v1/webhooks')).json.webhooks, []);
  t.equal((await d.rest(alice, 'GET', '/v1/webhooks')).json.webhooks.length, 1, "bob's delete changed nothing");
  t.equal((await deliveries(alice, 'wh_nothex')).status, 400);
  t.equal((await deliveries(alice, id, '?limit=0')).status, 400);
  t.equal((await deliveries(alice, id, '?state=lost')).status, 400);
  const gone = await d.rest(alice, 'DELETE', `/v1/webhooks/${id}`);
  t.same(gone.json, { ok: true, id, deleted: true });
  t.equal((await deliveries(alice, id)).status, 404);
});

t.test('download.finished: a page download arrives as a signed event naming the stored file', async (t) => {
  reset();
  const created = await d.rest(alice, 'POST', '/v1/webhooks', { url: `${receiver.url}/dl`, events: ['download.finished'] });
  const bytes = Buffer.from('%PDF-1.4\n% webhook report\n');
  site.route('/report.pdf', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(bytes.length), 'content-disposition': 'attachment; filename="report.pdf"' });
    res.end(bytes);
  });
  site.route('/dl', html('<a href="/report.pdf">Get the report</a>'));
  const client: Client = await d.mcp(alice);
  t.teardown(() => client.close());
  const opened = await call(client, 'browser_open', { url: `${site.url}/dl`, mode: 'act' });
  t.notOk(opened.isError, opened.text);
  const snap = await call(client, 'browser_snapshot');
  const clicked = await call(client, 'browser_click', { ref: refOf(snap.text, /Get the report/) });
  t.notOk(clicked.isError, clicked.text);
  await receiver.waitFor(() => receiver.calls.length === 1, 30_000);
  const event = verifyWebhook(created.json.secret, receiver.calls[0]!.headers as Record<string, string>, receiver.calls[0]!.body);
  t.equal(event.type, 'download.finished');
  t.match(event.data, { state: 'stored', url: `${site.url}/report.pdf`, file: { name: 'report.pdf', size: bytes.length, mimeType: 'application/pdf' } });
  await d.rest(alice, 'DELETE', `/v1/webhooks/${created.json.id}`);
});
