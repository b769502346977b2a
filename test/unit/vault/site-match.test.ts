/** Which hosts a vault entry's values may go to, and which login URLs it may take: its own site, by the Public Suffix List. */
import t from 'tap';
import { checkLoginEntryWrite, entryHosts, hostBelongs, hostOfName, nameKind, registrableDomain, siteOf } from '../../../daemon/secrets/site-match.js';

const codeOf = (f: () => void): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? 'thrown';
  }
};

t.test('an entry named after a host: that host and its sub-domains, nothing the login URL names', async (t) => {
  const entry = { name: 'example.com', loginUrl: 'https://accounts.example-login.net/signin' };
  t.same(entryHosts(entry), ['example.com'], 'a login URL adds no host');
  for (const h of ['example.com', 'www.example.com', 'a.b.example.com', 'EXAMPLE.COM.', 'example.com:8443', 'https://www.example.com:444/x']) t.ok(hostBelongs(h, entry), h);
  for (const h of ['accounts.example-login.net', 'x.accounts.example-login.net']) t.notOk(hostBelongs(h, entry), `${h}: the stored off-site login URL gives nothing`);
});

t.test('look-alikes and neighbours do not belong', async (t) => {
  const entry = { name: 'example.com' };
  for (const h of ['example.com.evil.test', 'evilexample.com', 'example.co', 'xexample.com', 'example-login.net', 'login.net', 'com', '', 'example.com@evil.test', '127.0.0.1', 'example.com..', 'ex%61mple.com']) {
    t.notOk(hostBelongs(h, entry), JSON.stringify(h));
  }
  // A Cyrillic "а" in place of the Latin one: its punycode form is another host.
  t.notOk(hostBelongs('exаmple.com', entry), 'homograph');
  t.notOk(hostBelongs('https://exаmple.com/', entry), 'homograph in a URL');
});

t.test('public suffixes, ICANN and private: a suffix matches no one, a site under one matches only itself', async (t) => {
  for (const name of ['co.uk', 'github.io', 'blogspot.com', 's3.amazonaws.com', 'com.au']) {
    t.equal(nameKind(name), 'public_suffix', name);
    t.same(entryHosts({ name }), [], `${name} has no hosts`);
    for (const h of [name, `victim.${name}`, `www.victim.${name}`]) t.notOk(hostBelongs(h, { name }), `${name} does not match ${h}`);
    t.equal(codeOf(() => checkLoginEntryWrite(name, undefined, undefined)), 'validation_error', `${name} is refused as an entry name`);
  }
  t.ok(hostBelongs('www.example.co.uk', { name: 'example.co.uk' }));
  t.notOk(hostBelongs('other.co.uk', { name: 'example.co.uk' }));
  t.ok(hostBelongs('alice.github.io', { name: 'alice.github.io' }));
  t.ok(hostBelongs('docs.alice.github.io', { name: 'alice.github.io' }));
  t.notOk(hostBelongs('bob.github.io', { name: 'alice.github.io' }), 'a neighbour under a private suffix');
  // amazonaws.com is a registrable domain, but s3.amazonaws.com under it is a suffix: its sub-sites are others'.
  t.ok(hostBelongs('www.amazonaws.com', { name: 'amazonaws.com' }));
  t.notOk(hostBelongs('evil.s3.amazonaws.com', { name: 'amazonaws.com' }), 'a deeper public suffix starts another site');
  t.equal(registrableDomain('a.b.example.co.uk'), 'example.co.uk');
  t.equal(registrableDomain('co.uk'), undefined);
});

t.test('siteOf: the site a host is on, for telling documents and messages of sites apart', async (t) => {
  t.equal(siteOf('login.example.com'), 'example.com');
  t.equal(siteOf('WWW.Example.CO.UK.'), 'example.co.uk', 'case and a trailing dot do not matter');
  t.equal(siteOf('docs.alice.github.io'), 'alice.github.io', 'a private suffix starts its own sites');
  t.equal(siteOf('github.io'), 'github.io', 'a public suffix is its own site, under which no one else is');
  t.equal(siteOf('co.uk'), 'co.uk');
  t.equal(siteOf('evil.s3.amazonaws.com'), 'evil.s3.amazonaws.com');
  t.equal(siteOf('localhost'), 'localhost', 'a single label is its own site');
  t.equal(siteOf('127.0.0.1'), '127.0.0.1', 'an address is its own site');
  t.equal(siteOf('10.0.0.1'), '10.0.0.1', 'not "0.1"');
  t.equal(siteOf('::1'), '::1');
  t.equal(siteOf('www.login.test'), 'login.test', 'an unlisted top-level label reads as a suffix of one label');
});

t.test('IDN hosts match in their punycode form, both ways of writing them', async (t) => {
  t.equal(hostOfName('bücher.example'), 'xn--bcher-kva.example');
  t.equal(hostOfName('https://BÜCHER.example/'), 'xn--bcher-kva.example');
  t.ok(hostBelongs('https://www.bücher.example/', { name: 'xn--bcher-kva.example' }));
  // 個人.香港 is an IDN public suffix: its punycode form is one too.
  const suffix = hostOfName('個人.香港')!;
  t.equal(nameKind(suffix), 'public_suffix', `${suffix} is a suffix`);
  t.notOk(hostBelongs(`victim.${suffix}`, { name: suffix }));
});

t.test('IPs match only themselves, in any spelling; trailing dots and ports are dropped', async (t) => {
  t.equal(hostOfName('login.test:8443'), 'login.test');
  t.equal(hostOfName('login.test.'), 'login.test');
  t.ok(hostBelongs('127.0.0.1', { name: '127.0.0.1' }));
  t.ok(hostBelongs('http://127.0.0.1:9999/', { name: '127.0.0.1:8080' }));
  t.ok(hostBelongs('0x7f.0.0.1', { name: '127.0.0.1' }), 'the same address in another spelling');
  t.notOk(hostBelongs('1.127.0.0.1', { name: '127.0.0.1' }), 'an IP has no sub-domains');
  t.notOk(hostBelongs('127.0.0.2', { name: '127.0.0.1' }));
  t.equal(nameKind('0:0:0:0:0:0:0:1'), 'ip');
  t.ok(hostBelongs('http://[::1]:8080/', { name: '0:0:0:0:0:0:0:1' }));
});

t.test('a name that is no host is bound to the host of its login URL, and matches nothing without one', async (t) => {
  t.same(entryHosts({ name: 'My_Bank:personal' }), [], 'a name that is no host gives no host');
  t.notOk(hostBelongs('personal', { name: 'My_Bank:personal' }));
  const bank = { name: 'My_Bank:personal', loginUrl: 'https://login.bank.example/signin' };
  t.same(entryHosts(bank), ['login.bank.example']);
  t.ok(hostBelongs('login.bank.example', bank));
  t.notOk(hostBelongs('bank.example', bank), 'the parent is not the login host');
  t.equal(nameKind('shop'), 'label', 'one label is a name, not a host');
  t.notOk(hostBelongs('shop', { name: 'shop' }));
  t.notOk(hostBelongs('localhost', { name: 'localhost' }), 'localhost by name alone is a label');
  t.ok(hostBelongs('localhost', { name: 'dev', loginUrl: 'http://localhost:3000/login' }), 'a one-label login host matches itself');
  t.notOk(hostBelongs('x.localhost', { name: 'dev', loginUrl: 'http://localhost:3000/login' }), 'and no sub-domain');
});

t.test('which login URLs an entry may be written with', async (t) => {
  const ok = (name: string, prev: { loginUrl?: string; fields: string[] } | undefined, url: string | undefined) => codeOf(() => checkLoginEntryWrite(name, prev, url));
  t.equal(ok('example.com', undefined, 'https://login.example.com/signin'), undefined, 'a sub-domain of the name');
  t.equal(ok('example.com', undefined, undefined), undefined, 'no login URL');
  t.equal(ok('example.com', { fields: ['password'] }, 'http://other.test/login'), 'refused', 'another site');
  t.equal(ok('example.com', undefined, 'https://example.com.evil.test/'), 'refused', 'a look-alike');
  t.equal(ok('www.example.com', undefined, 'https://login.example.com/'), 'refused', 'a sibling of the name');
  t.equal(ok('127.0.0.1', undefined, 'http://127.0.0.1:9/login'), undefined, 'an IP, another port');
  t.equal(ok('127.0.0.1', undefined, 'http://localhost/login'), 'refused', 'an IP entry and a name for it');
  t.equal(ok('example.com', undefined, 'javascript:alert(1)'), 'validation_error', 'not http(s)');
  t.equal(ok('shop', undefined, undefined), 'validation_error', 'a label entry needs a login URL at creation');
  t.equal(ok('shop', undefined, 'https://id.shopco.de/login'), undefined);
  t.equal(ok('shop', { loginUrl: 'https://id.shopco.de/login', fields: ['password'] }, 'https://id.shopco.de/other'), undefined, 'same host, another path');
  t.equal(ok('shop', { loginUrl: 'https://id.shopco.de/login', fields: ['password'] }, 'https://www.shopco.de/'), 'refused', 'another host, even on the same site');
  t.equal(ok('shop', { loginUrl: 'https://id.shopco.de/login', fields: ['password'] }, undefined), undefined, 'fields only');
  t.equal(ok('shop', { fields: ['password'] }, 'https://evil.test/'), 'refused', 'values stored without a site cannot be given one');
  t.equal(ok('shop', { fields: [] }, 'https://id.shopco.de/'), undefined, 'an empty entry can');
  t.equal(ok('shop', undefined, 'https://github.io/'), 'validation_error', 'a login URL on a public suffix');
});
