/**
 * The one body check (route-body.ts) against the schemas on the route rows: a refusal names where and what with
 * a next step, picks the branch of a union the body means, and never quotes a vault value back.
 */
import t from 'tap';
import { checkBody } from '../../../daemon/server/route-body.js';
import { NewUserBody } from '../../../daemon/server/route-schemas.js';
import { VaultPutBody } from '../../../daemon/vault/routes.js';
import { WebhookBody } from '../../../daemon/webhooks/routes.js';
import { BrowserdError } from '../../../protocol/errors.js';

function refusal(schema: Parameters<typeof checkBody>[0], body: unknown): BrowserdError {
  try {
    checkBody(schema, body);
  } catch (e) {
    return e as BrowserdError;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

t.test('a refused vault body says where, never the value', async (t) => {
  const SECRET = 'Sekr3t-value-xyz';
  for (const body of [{ fields: { password: SECRET.repeat(400) } }, { fields: { password: 7 }, note: SECRET }, { kind: 'otp_inbox', imap: { host: 'h', port: 0, user: 'u', password: SECRET } }, { kind: 'otp_inbox', imap: { host: SECRET + '!', port: 993, user: 'u', password: SECRET } }]) {
    const e = refusal(VaultPutBody, body);
    t.equal(e.code, 'validation_error');
    t.type(e.next, 'string');
    t.notOk(`${e.message} ${e.next}`.includes(SECRET), `no value quoted: ${e.message}`);
  }
});

t.test('the branch of a union the body means gives the message', async (t) => {
  t.equal(refusal(VaultPutBody, { kind: 'otp_inbox' }).message, 'imap is required');
  t.equal(refusal(VaultPutBody, { kind: 'otp_inbox', imap: { host: 'h', port: 99999, user: 'u', password: 'p' } }).message, 'imap.port must be <= 65535');
  t.equal(refusal(VaultPutBody, { fields: { 'bad name': 'v' } }).message, 'fields: unknown key "bad name"');
  t.equal(refusal(VaultPutBody, ['fields']).message, 'the body must be a JSON object');
  t.same(checkBody(VaultPutBody, { fields: { password: 'p' } }), { fields: { password: 'p' } }, 'a good body passes unchanged');
});

t.test('webhook and user bodies: the field named, an enum value quoted, a hinted message kept', async (t) => {
  t.match(refusal(WebhookBody, {}).message, /url is required/);
  t.match(refusal(WebhookBody, { url: 'https://x.test', events: ['page.loaded'] }).message, /"page\.loaded" is not one of/);
  t.match(refusal(WebhookBody, { url: 'https://x.test', secret: 'mine' }).message, /unknown key "secret"/);
  const name = refusal(NewUserBody, { name: 'Bad Name' });
  t.match(name.message, /^name must be 1-64 lowercase/);
  t.equal(name.next, 'Pick a name such as "alice".');
  t.same(checkBody(NewUserBody, { name: 'ok', extra: 1 }), { name: 'ok', extra: 1 }, 'unknown keys pass, as before');
});
