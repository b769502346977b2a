/** Which site a host's cookies are saved under: the simplified registrable domain a saved session groups by. */
import t from 'tap';
import { siteOfHost } from '../../../daemon/browser/session-state.js';

t.test('two labels, three under a two-label public suffix', async (t) => {
  t.equal(siteOfHost('www.example.com'), 'example.com');
  t.equal(siteOfHost('a.b.login.example.com'), 'example.com');
  t.equal(siteOfHost('example.com'), 'example.com');
  t.equal(siteOfHost('shop.example.co.uk'), 'example.co.uk');
  t.equal(siteOfHost('example.co.uk'), 'example.co.uk');
  t.equal(siteOfHost('www.bank.com.au'), 'bank.com.au');
});

t.test('cookie domains, case and a trailing dot do not make another site', async (t) => {
  t.equal(siteOfHost('.example.com'), 'example.com');
  t.equal(siteOfHost('WWW.Example.COM.'), 'example.com');
});

t.test('IP addresses and one-label names are their own site, ports play no part', async (t) => {
  t.equal(siteOfHost('127.0.0.1'), '127.0.0.1');
  t.equal(siteOfHost('10.1.2.3'), '10.1.2.3', 'not "2.3"');
  t.equal(siteOfHost('[::1]'), '::1');
  t.equal(siteOfHost('::1'), '::1');
  t.equal(siteOfHost('localhost'), 'localhost');
});
