import t from 'tap';
import { allowedByDomains, hostMatches, normaliseHost } from '../../../daemon/policy/url-rules.js';

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
