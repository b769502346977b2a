/** Which hosts a vault entry's values may go to: its own and sub-domains, never a look-alike. */
import t from 'tap';
import { entryHosts, hostBelongs, hostOfName } from '../../../daemon/vault/site-match.js';

const entry = { name: 'example.com', loginUrl: 'https://accounts.example-login.net/signin' };

t.test('the entry host, its login URL host and their sub-domains belong', async (t) => {
  t.same(entryHosts(entry), ['example.com', 'accounts.example-login.net']);
  for (const h of ['example.com', 'www.example.com', 'a.b.example.com', 'EXAMPLE.COM.', 'accounts.example-login.net', 'x.accounts.example-login.net']) t.ok(hostBelongs(h, entry), h);
});

t.test('look-alikes and neighbours do not', async (t) => {
  for (const h of ['example.com.evil.test', 'evilexample.com', 'example.co', 'xexample.com', 'example-login.net', 'login.net', 'com', '', 'example.com@evil.test', '127.0.0.1']) t.notOk(hostBelongs(h, entry), JSON.stringify(h));
});

t.test('names with ports, IP entries and names that are not hosts', async (t) => {
  t.equal(hostOfName('login.test:8443'), 'login.test');
  t.ok(hostBelongs('127.0.0.1', { name: '127.0.0.1' }));
  t.notOk(hostBelongs('1.127.0.0.1', { name: '127.0.0.1' }), 'an IP has no sub-domains');
  t.same(entryHosts({ name: 'My_Bank:personal' }), [], 'a name that is no host gives no host');
  t.notOk(hostBelongs('personal', { name: 'My_Bank:personal' }));
  t.notOk(hostBelongs('x.localhost', { name: 'localhost' }), 'a one-label name matches only itself');
  t.ok(hostBelongs('localhost', { name: 'localhost' }));
});
