// The traffic redactor hides values and keeps names, so what it gives is still a valid, useful record.
import t from 'tap';
import { trafficRedactor, REDACTED } from '../../../daemon/traffic/redact.js';
import { scrubList } from '../../../daemon/call/redact.js';

const r = trafficRedactor(scrubList(['hunter2-vault', '482913']));

t.test('headers: names kept, credentials hidden, cookie names and attributes kept', async (t) => {
  t.same(r.headers({ Authorization: 'Bearer abc.def', Cookie: 'sid=xyz; theme=dark', 'X-CSRF-Token': 'tok', Accept: 'application/json', 'X-Api-Key': 'k' }), {
    Authorization: `Bearer ${REDACTED}`, Cookie: `sid=${REDACTED}; theme=${REDACTED}`, 'X-CSRF-Token': REDACTED, Accept: 'application/json', 'X-Api-Key': REDACTED,
  });
  t.equal(r.header('set-cookie', 'sid=xyz; Path=/; HttpOnly\nlang=en; Max-Age=60'), `sid=${REDACTED}; Path=/; HttpOnly\nlang=${REDACTED}; Max-Age=60`);
  t.equal(r.header('x-note', 'my password is hunter2-vault'), 'my password is [secret hidden]', 'a vault value in any header is hidden');
});

t.test('URLs: secret query values and user info hidden, names kept, the rest whole', async (t) => {
  const long = `https://u:p@api.test/items?page=2&access_token=abc&q=${'x'.repeat(500)}`;
  const out = r.url(long);
  t.match(out, /^https:\/\/redacted@api\.test\/items\?page=2&access_token=redacted&q=x{500}$/);
  const withVault = r.url('https://api.test/u/hunter2-vault/items?note=hunter2-vault');
  t.equal(withVault, 'https://api.test/u/%5Bsecret%20hidden%5D/items?note=%5Bsecret%20hidden%5D', 'a vault value in a URL is hidden and the URL stays a valid URI');
  t.doesNotThrow(() => new URL(withVault));
});

t.test('bodies: JSON keys and form fields by name, valid JSON kept, vault values anywhere', async (t) => {
  const json = r.body(JSON.stringify({ user: 'ann', password: 'pw1', nested: { csrfToken: 'c', list: [{ api_key: 'k', author: 'Jane' }] }, note: 'code 482913 and 1795468482913' }), 'application/json');
  t.same(JSON.parse(json), { user: 'ann', password: REDACTED, nested: { csrfToken: REDACTED, list: [{ api_key: REDACTED, author: 'Jane' }] }, note: 'code [secret hidden] and 1795468482913' });
  t.equal(r.body('user=ann&password=pw1&_csrf=t&q=shoes', 'application/x-www-form-urlencoded; charset=UTF-8'), `user=ann&password=${encodeURIComponent(REDACTED)}&_csrf=${encodeURIComponent(REDACTED)}&q=shoes`);
  t.equal(r.body('plain hunter2-vault text', 'text/plain'), 'plain [secret hidden] text');
  t.equal(r.message('{"type":"auth","token":"abc"}'), JSON.stringify({ type: 'auth', token: REDACTED }));
  t.equal(r.message('not json {'), 'not json {');
  const deep = JSON.stringify(Array.from({ length: 100 }).reduce((acc) => ({ a: acc }), { password: 'x' }));
  t.doesNotThrow(() => JSON.parse(r.body(deep, 'application/json')), 'deep JSON stays valid');
});
