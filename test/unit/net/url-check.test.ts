import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { checkUrl, normaliseUserUrl, type UrlGuard } from '../../../daemon/net/url-check.js';

const open = { allowPrivateNetwork: true };
const guarded = { allowPrivateNetwork: false };
/** The code checkUrl throws, or the URL it returns. */
function outcome(input: string, guard: UrlGuard = open): string {
  try {
    return checkUrl(input, guard);
  } catch (e) {
    return e instanceof BrowserdError ? e.code : String(e);
  }
}

t.test('checkUrl lets http(s) and about:blank through, normalised', async (t) => {
  t.equal(checkUrl('https://example.com', open), 'https://example.com/');
  t.equal(checkUrl('http://127.0.0.1:8080/x?y=1#z', open), 'http://127.0.0.1:8080/x?y=1#z');
  t.equal(checkUrl('about:blank', open), 'about:blank');
  t.equal(checkUrl('  HTTPS://EXAMPLE.com/A  ', open), 'https://example.com/A');
  t.equal(checkUrl('example.com/a', guarded), 'https://example.com/a');
});

t.test('checkUrl blocks browser-internal, local and script schemes, saying what is accepted', async (t) => {
  const refused = [
    'file:///etc/passwd', 'FILE:///C:/Windows', 'chrome://settings', 'chrome://inspect/#devices', 'chrome-extension://abcdef/page.html',
    'devtools://devtools/bundled/inspector.html', 'view-source:https://example.com', 'javascript:alert(1)', 'JavaScript:void(0)',
    'data:text/html,<h1>hi</h1>', 'about:settings', 'about:config', 'blob:https://example.com/1234', 'ftp://example.com/', 'mailto:a@b.c', 'ws://example.com/',
  ];
  for (const url of refused) {
    t.equal(outcome(url), 'blocked', url);
    t.throws(() => checkUrl(url, open), { message: /Only http\(s\) addresses and about:blank/ }, url);
  }
  t.throws(() => checkUrl('file:///etc/passwd', open), { message: /^file: URLs are not available to agents/ });
});

t.test('checkUrl blocks literal private addresses the guard would refuse, and allows the admin\'s targets', async (t) => {
  for (const url of ['http://127.0.0.1:8080/', '127.0.0.1:8080', 'localhost:3000', 'http://app.localhost/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::1]:9000/', 'http://10.0.0.5/', 'http://192.168.1.1/', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/']) {
    t.equal(outcome(url, guarded), 'blocked', url);
    t.not(outcome(url, open), 'blocked', `${url} with private networks allowed`);
  }
  t.equal(outcome('http://10.0.0.5/x', { allowPrivateNetwork: false, allowTargets: ['10.0.0.5:80'] }), 'http://10.0.0.5/x', 'an allowed target passes');
  t.equal(outcome('http://10.0.0.5:81/x', { allowPrivateNetwork: false, allowTargets: ['10.0.0.5:80'] }), 'blocked', 'only on its port');
  t.equal(outcome('localhost:3000', { allowPrivateNetwork: false, allowTargets: ['127.0.0.1:3000'] }), 'blocked', 'localhost is ::1 too, which is not allowed');
  t.equal(outcome('http://0.0.0.0/', open), 'blocked', 'the unspecified address never passes');
  t.equal(outcome('https://rebind.example/', guarded), 'https://rebind.example/', 'names are left to the egress proxy');
});

t.test('checkUrl calls what is not an address a validation_error', async (t) => {
  for (const url of ['', 'not a url', 'http://', 'https://exa mple.com', 'pizza']) {
    t.equal(outcome(url), 'validation_error', JSON.stringify(url));
    t.throws(() => checkUrl(url, open), { message: /Accepted: an http\(s\) URL/ }, JSON.stringify(url));
  }
});

t.test('normaliseUserUrl fills in the scheme people leave out', async (t) => {
  const cases: [string, string][] = [
    ['example.com', 'https://example.com/'],
    ['Example.COM/Path?q=1', 'https://example.com/Path?q=1'],
    ['www.example.co.uk:8443/a', 'https://www.example.co.uk:8443/a'],
    ['//example.com/x', 'https://example.com/x'],
    ['bücher.de', 'https://xn--bcher-kva.de/'],
    ['localhost', 'http://localhost/'],
    ['localhost:3000', 'http://localhost:3000/'],
    ['app.localhost:5173/dev', 'http://app.localhost:5173/dev'],
    ['127.0.0.1:8080/x', 'http://127.0.0.1:8080/x'],
    ['10.0.0.5', 'http://10.0.0.5/'],
    ['[::1]:9000', 'http://[::1]:9000/'],
    ['intranet:8080', 'http://intranet:8080/'],
    ['  example.com  ', 'https://example.com/'],
    // explicit schemes are kept; checkAgentUrl decides about them
    ['http://example.com', 'http://example.com/'],
    ['https://localhost:3000', 'https://localhost:3000/'],
    ['about:blank', 'about:blank'],
    ['file:///etc/passwd', 'file:///etc/passwd'],
    ['javascript:alert(1)', 'javascript:alert(1)'],
  ];
  for (const [input, url] of cases) t.equal(normaliseUserUrl(input), url, `${input} -> ${url}`);
});

t.test('normaliseUserUrl rejects empty and garbage input, saying what is accepted', async (t) => {
  for (const input of ['', '   ', 'hello world', 'pizza', 'http://', 'https://exa mple.com', '?', '::::', 'http://[::1']) {
    t.throws(() => normaliseUserUrl(input), { code: 'validation_error', message: /Accepted: an http\(s\) URL .*example\.com means https:\/\/example\.com\/.*localhost:3000/ }, JSON.stringify(input));
  }
  try {
    normaliseUserUrl('');
  } catch (e) {
    t.ok(e instanceof BrowserdError);
    t.match((e as BrowserdError).next, /https:\/\/example\.com/);
  }
});


t.test("a refused loopback page names the operator's two ways to allow it", async (t) => {
  let e: BrowserdError | undefined;
  try {
    checkUrl('http://127.0.0.1:8080/', guarded);
  } catch (x) {
    e = x as BrowserdError;
  }
  t.equal(e?.code, 'blocked');
  t.match(e?.next, /--allow-private-network \(BROWSERD_ALLOW_PRIVATE_NETWORK=1\)/);
  t.match(e?.next, /BROWSERD_ALLOW_TARGETS=address:port/);
});
