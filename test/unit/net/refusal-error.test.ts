/**
 * One wording of guard refusals for the daemon's own connections (net/refusal-error.ts): each caller keeps its
 * codes (a name that does not resolve fails as its caller fails; an address or the daemon's port is blocked), and
 * a malformed page target stays a refusal for crawl hops. No connection is made: lookups are the test's own.
 */
import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { addressRefusal } from '../../../daemon/fetch/guarded-fetch.js';
import { vetReceiver } from '../../../daemon/webhooks/receiver-url.js';
import { mailboxAddress } from '../../../daemon/vault/otp/mailbox-address.js';

const none = { allowPrivateNetwork: false, deniedPorts: () => new Set<number>(), lookup: async () => [] };
const closed = { allowPrivateNetwork: false, deniedPorts: () => new Set<number>() };
const own = { allowPrivateNetwork: true, deniedPorts: () => new Set([8787]) };

async function refusal(p: Promise<unknown>): Promise<BrowserdError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BrowserdError) return e;
    throw e;
  }
  throw new Error('not refused');
}

t.test('a page fetch', async (t) => {
  t.equal(await addressRefusal('http://nowhere.test/', none), undefined, 'a name that does not resolve is no refusal');
  t.equal(await addressRefusal('http://a.test:0/', closed), 'a.test:0 is not a target', 'a malformed target stays a refusal');
  t.equal(await addressRefusal('http://127.0.0.1:8787/', own), "port 8787 on this machine is the daemon's own");
  t.equal(await addressRefusal('http://10.0.0.5/', closed), '10.0.0.5 is a private address, which the daemon may not reach');
});

t.test('a webhook receiver', async (t) => {
  t.match(await refusal(vetReceiver(new URL('http://nowhere.test/'), none)), { code: 'validation_error', message: 'url: nowhere.test did not resolve', next: 'Check the receiver address.' });
  t.match(await refusal(vetReceiver(new URL('http://a.test:0/'), closed)), { code: 'validation_error', message: 'url: a.test:0 is not a target' });
  t.match(await refusal(vetReceiver(new URL('http://127.0.0.1:8787/'), own)), { code: 'blocked', next: 'Point the webhook at your receiver, not at browserd.' });
  const e = await refusal(vetReceiver(new URL('http://[::1]:9/'), closed));
  t.match(e, { code: 'blocked', message: 'url: ::1 is a loopback address, which the daemon may not reach' });
  t.match(e.next, /^Use a public receiver address; an admin can start the daemon with --allow-private-network \(BROWSERD_ALLOW_PRIVATE_NETWORK=1\) or allow single targets with BROWSERD_ALLOW_TARGETS=address:port\.$/);
});

t.test('a mailbox', async (t) => {
  t.match(await refusal(mailboxAddress('mail', 'nowhere.test', 993, { allowPrivateNetwork: false, lookup: async () => [] })), { code: 'action_failed', message: 'could not read inbox mail: the mailbox host nowhere.test did not resolve' });
  t.match(await refusal(mailboxAddress('mail', 'imap.test', 0, { allowPrivateNetwork: false })), { code: 'action_failed' });
  t.match(await refusal(mailboxAddress('mail', '127.0.0.1', 8787, { allowPrivateNetwork: true, deniedPorts: new Set([8787]) })), {
    code: 'blocked',
    message: "inbox mail: port 8787 on this machine is the daemon's own",
  });
  t.match(await refusal(mailboxAddress('mail', '10.0.0.5', 993, { allowPrivateNetwork: false })), { code: 'blocked', message: 'inbox mail: the mailbox host 10.0.0.5 is a private address, which the daemon may not reach' });
});
