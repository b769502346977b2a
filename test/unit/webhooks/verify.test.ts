/**
 * verifyWebhook (client/verify.ts) against signatures made by the standardwebhooks package itself: it accepts
 * a true call, also when the header holds several signatures, and rejects a forged signature, an altered body,
 * a stale or future timestamp, and a call missing a header.
 */
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../../client/verify.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const other = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ type: 'handoff.finished', timestamp: '2026-01-01T00:00:00.000Z', data: { id: 'ho_0123456789abcdef', status: 'resolved' } });
const now = Date.UTC(2026, 0, 1, 0, 0, 30);

function signed(opts: { secret?: string; at?: number; id?: string; payload?: string } = {}) {
  const at = new Date(opts.at ?? now);
  const id = opts.id ?? 'msg_0000000000010123456789ab';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(opts.secret ?? secret).sign(id, at, opts.payload ?? body),
  };
}

/** The call throws a WebhookVerificationError whose message matches `why`. */
function rejects(t: Test, fn: () => unknown, why: RegExp, name: string) {
  try {
    fn();
    t.fail(`${name}: accepted`);
  } catch (e) {
    t.ok(e instanceof WebhookVerificationError, `${name}: a WebhookVerificationError`);
    t.match((e as Error).message, why, name);
  }
}

t.test('a true call: the parsed event, whatever the header casing or body type', async (t) => {
  const h = signed();
  t.same(verifyWebhook(secret, h, body, { now }), JSON.parse(body));
  const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
  t.same(verifyWebhook(secret, upper, Buffer.from(body), { now }).data, { id: 'ho_0123456789abcdef', status: 'resolved' });
  t.same(verifyWebhook(secret, new Headers(h), new TextEncoder().encode(body), { now }).type, 'handoff.finished');
  // The secret may be given without its prefix, as some receivers store it.
  t.ok(verifyWebhook(secret.slice(6), h, body, { now }));
  // What standardwebhooks itself accepts, at the real clock.
  const live = signed({ at: Date.now() });
  t.same(new Webhook(secret).verify(body, live), verifyWebhook(secret, live, body));
});

t.test('several signatures in one header: any one matching is enough, in any place', async (t) => {
  const h = signed();
  const mine = h['webhook-signature'];
  const foreign = signed({ secret: other })['webhook-signature'];
  for (const sigs of [`${foreign} ${mine}`, `${mine} ${foreign}`, `v2,abc ${foreign} ${mine}`]) {
    t.ok(verifyWebhook(secret, { ...h, 'webhook-signature': sigs }, body, { now }), sigs.slice(0, 20));
  }
  rejects(t, () => verifyWebhook(secret, { ...h, 'webhook-signature': `${foreign} v2,${mine.slice(3)}` }, body, { now }), /no matching/, 'the right bytes under another version do not count');
});

t.test('forged: another secret, a made-up signature, a signature for another id', async (t) => {
  rejects(t, () => verifyWebhook(secret, signed({ secret: other }), body, { now }), /no matching/, 'signed with another secret');
  rejects(t, () => verifyWebhook(secret, { ...signed(), 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` }, body, { now }), /no matching/, 'random signature');
  rejects(t, () => verifyWebhook(secret, { ...signed(), 'webhook-signature': 'v1,' }, body, { now }), /no matching/, 'empty signature');
  rejects(t, () => verifyWebhook(secret, { ...signed(), 'webhook-id': 'msg_other' }, body, { now }), /no matching/, 'the id changed');
});

t.test('altered: a changed body or timestamp no longer matches', async (t) => {
  const h = signed();
  rejects(t, () => verifyWebhook(secret, h, body.replace('resolved', 'expired'), { now }), /no matching/, 'body changed');
  rejects(t, () => verifyWebhook(secret, h, `${body} `, { now }), /no matching/, 'a byte added');
  rejects(t, () => verifyWebhook(secret, h, JSON.stringify(JSON.parse(body), null, 1), { now }), /no matching/, 're-serialised JSON');
  rejects(t, () => verifyWebhook(secret, { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) + 1) }, body, { now }), /no matching/, 'timestamp moved by a second');
});

t.test('stale or early: outside 5 minutes either way, even when the signature is right', async (t) => {
  rejects(t, () => verifyWebhook(secret, signed({ at: now - 5 * 60_000 - 2000 }), body, { now }), /too old/, 'just over 5 minutes old');
  t.ok(verifyWebhook(secret, signed({ at: now - 5 * 60_000 + 2000 }), body, { now }), 'just under 5 minutes old');
  rejects(t, () => verifyWebhook(secret, signed({ at: now + 5 * 60_000 + 2000 }), body, { now }), /too new/, 'from the future');
  rejects(t, () => verifyWebhook(secret, { ...signed(), 'webhook-timestamp': 'soon' }, body, { now }), /whole seconds/, 'not a number');
});

t.test('missing headers, and a signed body that is not an event', async (t) => {
  for (const k of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const h: Record<string, string> = { ...signed() };
    delete h[k];
    rejects(t, () => verifyWebhook(secret, h, body, { now }), /missing/, `without ${k}`);
  }
  const notEvent = JSON.stringify({ hello: 1 });
  rejects(t, () => verifyWebhook(secret, signed({ payload: notEvent }), notEvent, { now }), /not a webhook event/, 'valid signature, wrong shape');
});
