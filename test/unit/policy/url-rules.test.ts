import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { allowedByDomains, checkAgentUrl, hostMatches, normaliseHost, normaliseUserUrl } from '../../../daemon/policy/url-rules.js';

t.test('checkAgentUrl lets http(s) and about:blank through', async (t) => {
  t.same(checkAgentUrl('https://example.com'), { ok: true, url: 'https://example.com/' });
  t.same(checkAgentUrl('http://127.0.0.1:8080/x?y=1#z'), { ok: true, url: 'http://127.0.0.1:8080/x?y=1#z' });
  t.same(checkAgentUrl('about:blank'), { ok: true, url: 'about:blank' });
  t.same(checkAgentUrl('  HTTPS://EXAMPLE.com/A  '), { ok: true, url: 'https://example.com/A' });
});

t.test('checkAgentUrl refuses browser-internal, local and script schemes', async (t) => {
  const refused = [
    'file:///etc/passwd', 'FILE:///C:/Windows', 'chrome://settings', 'chrome://inspect/#devices', 'chrome-extension://abcdef/page.html',
    'devtools://devtools/bundled/inspector.html', 'view-source:https://example.com', 'javascript:alert(1)', 'JavaScript:void(0)',
    'data:text/html,<h1>hi</h1>', 'about:settings', 'about:config', 'blob:https://example.com/1234', 'ftp://example.com/', 'mailto:a@b.c', 'ws://example.com/',
  ];
  for (const url of refused) {
    const r = checkAgentUrl(url);
    t.equal(r.ok, false, url);
    if (!r.ok) {
      t.equal(r.code, 'refused', `${url} is refused`);
      t.match(r.message, /Only http\(s\) addresses and about:blank/);
    }
  }
  const file = checkAgentUrl('file:///etc/passwd');
  t.match(file, { ok: false, message: /^file: URLs are not available to agents/ });
});

t.test('checkAgentUrl calls garbage a validation_error', async (t) => {
  for (const url of ['', 'example.com', 'not a url', 'http://', 'https://exa mple.com']) {
    t.match(checkAgentUrl(url), { ok: false, code: 'validation_error', message: /Accepted: an http\(s\) URL/ }, JSON.stringify(url));
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

t.test('hostMatches: a plain pattern covers the domain and its sub-domains', async (t) => {
  t.ok(hostMatches('example.com', 'example.com'));
  t.ok(hostMatches('www.example.com', 'example.com'));
  t.ok(hostMatches('a.b.example.com', 'example.com'));
  t.notOk(hostMatches('notexample.com', 'example.com'), 'a suffix is not a sub-domain');
  t.notOk(hostMatches('example.com.evil.net', 'example.com'));
  t.notOk(hostMatches('example.org', 'example.com'));
  t.notOk(hostMatches('com', 'example.com'));
});

t.test('hostMatches: *.pattern covers sub-domains only', async (t) => {
  t.ok(hostMatches('www.example.com', '*.example.com'));
  t.ok(hostMatches('a.b.example.com', '*.example.com'));
  t.notOk(hostMatches('example.com', '*.example.com'));
  t.notOk(hostMatches('badexample.com', '*.example.com'));
  t.ok(hostMatches('anything.test', '*'));
});

t.test('hostMatches ignores case, trailing dots, ports and IDN spelling', async (t) => {
  t.ok(hostMatches('WWW.Example.COM', 'example.com'));
  t.ok(hostMatches('www.example.com.', 'Example.Com'));
  t.ok(hostMatches('www.example.com', 'example.com.'));
  t.ok(hostMatches('xn--bcher-kva.de', 'bücher.de'));
  t.ok(hostMatches('shop.bücher.de', 'xn--bcher-kva.de'));
  t.ok(hostMatches('shop.BÜCHER.de', '*.bücher.de'));
  t.ok(hostMatches('example.com', 'https://example.com/some/page'), 'a pasted URL counts as its host');
  t.ok(hostMatches('example.com', 'example.com:443'));
});

t.test('hostMatches treats IP literals as one host', async (t) => {
  t.ok(hostMatches('127.0.0.1', '127.0.0.1'));
  t.ok(hostMatches('2130706433', '127.0.0.1'), 'the same address in another spelling');
  t.ok(hostMatches('[::1]', '::1'));
  t.notOk(hostMatches('127.0.0.2', '127.0.0.1'));
  t.notOk(hostMatches('1.127.0.0.1', '127.0.0.1'));
  t.equal(normaliseHost('[::1]:8080'), '::1');
  t.equal(normaliseHost('0x7f.1'), '127.0.0.1');
});

t.test('allowedByDomains', async (t) => {
  t.ok(allowedByDomains('https://anywhere.test/', undefined), 'no list, no limit');
  t.ok(allowedByDomains('https://shop.example.com/cart', ['example.com']));
  t.ok(allowedByDomains('http://example.com:8080/', ['example.com']));
  t.ok(allowedByDomains('https://a.example.org/', ['example.com', '*.example.org']));
  t.notOk(allowedByDomains('https://example.org/', ['example.com', '*.example.org']));
  t.notOk(allowedByDomains('https://evil.test/?next=example.com', ['example.com']));
  t.notOk(allowedByDomains('https://example.com.evil.test/', ['example.com']));
  t.notOk(allowedByDomains('https://user:pw@evil.test/', ['example.com']));
  t.ok(allowedByDomains('https://example.com@evil.test/', ['evil.test']), 'userinfo is not the host');
  t.notOk(allowedByDomains('https://example.com@evil.test/', ['example.com']));
  t.ok(allowedByDomains('about:blank', ['example.com']), 'the empty page is always fine');
  t.ok(allowedByDomains('blob:https://example.com/uuid', ['example.com']), 'a blob counts as its origin');
  t.notOk(allowedByDomains('blob:https://evil.test/uuid', ['example.com']));
  t.notOk(allowedByDomains('data:text/html,hi', ['example.com']));
  t.notOk(allowedByDomains('javascript:alert(1)', ['example.com']));
  t.notOk(allowedByDomains('not a url', ['example.com']));
  t.notOk(allowedByDomains('https://example.com/', []), 'an empty list allows nothing');
  t.ok(allowedByDomains('about:blank', []));
  t.ok(allowedByDomains('wss://live.example.com/socket', ['example.com']));
});
