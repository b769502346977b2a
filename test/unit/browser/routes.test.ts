/** A tab's routes without a browser: the URL rule, matching order and filters, and every refusal. */
import t from 'tap';
import { TabRoutes, checkRouteSpec, MAX_ROUTES_PER_TAB, MAX_MOCK_BODY_BYTES, type RouteSpec } from '../../../daemon/browser/routes.js';
import { urlMatcher } from '../../../daemon/browser/url-pattern.js';
import { BrowserdError } from '../../../protocol/errors.js';

const req = (url: string, method = 'GET', resourceType = 'Fetch') => ({ url, method, resourceType });

t.test('"*" matches every URL', async (t) => {
  const m = urlMatcher('*');
  for (const u of ['http://127.0.0.1:8080/', 'https://a.example/x/y?z=1', 'data:text/plain,hi', '']) t.ok(m(u), u);
});

t.test('a pattern without a star is a case-sensitive substring', async (t) => {
  const m = urlMatcher('/api/items');
  t.ok(m('http://h.example/api/items'));
  t.ok(m('http://h.example/v2/api/items?page=2'));
  t.notOk(m('http://h.example/API/items'), 'case-sensitive');
  t.notOk(m('http://h.example/api/item'));
  t.ok(urlMatcher('.')('http://a.b/'), 'regular-expression characters are literal');
  t.notOk(urlMatcher('a.c')('http://abc/'), 'a dot is a dot, not any character');
});

t.test('globs: every * matches any run of characters, / included, and the whole URL must match', async (t) => {
  const api = urlMatcher('**/api/*');
  t.ok(api('http://127.0.0.1:4000/api/items'));
  t.ok(api('https://shop.example/api/other?x=1'), 'the query is part of the rest');
  t.ok(api('http://127.0.0.1:4000/api/items/7'), '* crosses /');
  t.notOk(api('http://127.0.0.1:4000/apix/items'));
  t.notOk(api('http://127.0.0.1:4000/v1/items'));
  t.ok(urlMatcher('**/api/**')('http://h/api/items/7'), '** is the same as *');
  t.ok(urlMatcher('**/*.png')('https://cdn.example/a/b/logo.png'));
  t.notOk(urlMatcher('**/*.png')('https://cdn.example/a/b/logo.png.html'));
  t.ok(urlMatcher('*.png')('https://cdn.example/logo.png'), 'a single * covers the scheme and host too');
  t.ok(urlMatcher('http://h/*/x')('http://h/a/x'));
  t.ok(urlMatcher('http://h/*/x')('http://h/a/b/x'));
  t.notOk(urlMatcher('http://h/*/x')('http://h/a/b/x/y'), 'the glob ends where the URL ends');
  t.ok(urlMatcher('http://h/*')('http://h/'), '* may match nothing');
  t.ok(urlMatcher('**')('anything/at/all'));
  t.ok(urlMatcher('http://h/a(b)+[c]?$^/**')('http://h/a(b)+[c]?$^/z'), 'other characters are literal in a glob too');
});

t.test('a glob with many stars stays fast on a long URL (no backtracking)', async (t) => {
  const m = urlMatcher('**a**a**a**a**a**a**a**a**a**a**a**a**b');
  const url = 'a'.repeat(200_000);
  const started = Date.now();
  t.notOk(m(url));
  t.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
});

t.test('the newest matching route wins; methods and resource types filter', async (t) => {
  const r = new TabRoutes();
  const a = r.add({ urlPattern: '/api/', kind: 'mock', body: 'old' });
  const b = r.add({ urlPattern: '/api/items', kind: 'fail', errorReason: 'TimedOut' });
  const c = r.add({ urlPattern: '*', kind: 'block', methods: ['post'], resourceTypes: ['xhr'] });
  t.same([a.id, b.id, c.id], ['r1', 'r2', 'r3']);
  t.match(r.match(req('http://h/api/items')), { kind: 'fail', id: 'r2', errorReason: 'TimedOut' });
  t.match(r.match(req('http://h/api/other')), { kind: 'mock', id: 'r1' });
  t.equal(r.match(req('http://h/page')), undefined);
  t.equal(r.match(req('http://h/api/items', 'POST', 'Script'))?.id, 'r2', 'r3 is for xhr only');
  t.equal(r.match(req('http://h/api/items', 'POST', 'XHR'))?.id, 'r3', 'methods are compared upper-case, types lower-case');
  t.same(r.list().map((x) => x.hits), [1, 2, 1], "each answer counts once, for the route that gave it");
  t.same(r.list()[2].methods, ['POST']);
  r.add({ urlPattern: '/x', kind: 'block', resourceTypes: ['fetch'] });
  t.equal(r.match(req('http://h/x', 'GET', 'XHR'))?.id, 'r4', 'Chromium pauses fetch() as XHR: "fetch" takes it');
  t.same(r.list()[3].resourceTypes, ['fetch'], 'the list shows what was asked for');
});

t.test('a mock carries its status, type, headers and body', async (t) => {
  const r = new TabRoutes();
  r.add({ urlPattern: '*', kind: 'mock', status: 201, body: 'héllo', contentType: 'application/json', headers: { 'X-Mock': 'yes' } });
  const a = r.match(req('http://h/'));
  if (a?.kind !== 'mock') throw new Error('not a mock');
  t.equal(a.status, 201);
  t.same(a.headers, [{ name: 'X-Mock', value: 'yes' }, { name: 'Content-Type', value: 'application/json' }]);
  t.equal(Buffer.from(a.bodyBase64, 'base64').toString('utf8'), 'héllo');
  t.match(r.list()[0], { status: 201, contentType: 'application/json', bodyBytes: 6 });
  r.add({ urlPattern: '*', kind: 'mock' });
  const empty = r.match(req('http://h/'));
  t.match(empty, { kind: 'mock', status: 200, bodyBase64: '', headers: [] }, 'no body: status 200, nothing else');
  r.add({ urlPattern: '*', kind: 'mock', body: 'x' });
  t.match(r.match(req('http://h/')), { headers: [{ name: 'Content-Type', value: 'text/plain; charset=utf-8' }] }, 'a body without a type is plain text');
});

t.test('remove one, remove all, unknown id', async (t) => {
  const r = new TabRoutes();
  r.add({ urlPattern: 'a', kind: 'block' });
  r.add({ urlPattern: 'b', kind: 'block' });
  r.add({ urlPattern: 'c', kind: 'block' });
  t.same(r.remove('r2'), ['r2']);
  t.same(r.list().map((x) => x.id), ['r1', 'r3']);
  t.throws(() => r.remove('r2'), { code: 'not_found' });
  t.equal(r.size, 2, 'a failed remove removes nothing');
  t.same(r.remove(), ['r1', 'r3']);
  t.equal(r.size, 0);
  t.equal(r.add({ urlPattern: 'd', kind: 'block' }).id, 'r4', 'ids are not reused');
});

const refusals: [string, RouteSpec, string][] = [
  ['no urlPattern', { kind: 'block' } as RouteSpec, 'urlPattern'],
  ['no kind', { urlPattern: '*' } as RouteSpec, 'kind'],
  ['status below 100', { urlPattern: '*', kind: 'mock', status: 99 }, 'status'],
  ['status above 599', { urlPattern: '*', kind: 'mock', status: 600 }, 'status'],
  ['body over 1 MiB', { urlPattern: '*', kind: 'mock', body: 'x'.repeat(MAX_MOCK_BODY_BYTES + 1) }, 'body'],
  ['body over 1 MiB in bytes, not characters', { urlPattern: '*', kind: 'mock', body: 'é'.repeat(MAX_MOCK_BODY_BYTES / 2 + 1) }, 'body'],
  ['Set-Cookie', { urlPattern: '*', kind: 'mock', headers: { 'Set-Cookie': 'a=b' } }, 'headers'],
  ['set-cookie in another case', { urlPattern: '*', kind: 'mock', headers: { 'sEt-CoOkIe': 'a=b' } }, 'headers'],
  ['a header name with a space', { urlPattern: '*', kind: 'mock', headers: { 'X Bad': 'v' } }, 'headers'],
  ['a header value with a line break', { urlPattern: '*', kind: 'mock', headers: { 'X-Ok': 'v\r\nSet-Cookie: a=b' } }, 'headers'],
  ['contentType and a Content-Type header', { urlPattern: '*', kind: 'mock', contentType: 'text/html', headers: { 'content-type': 'text/plain' } }, 'headers'],
  ['unknown errorReason', { urlPattern: '*', kind: 'fail', errorReason: 'Nope' as never }, 'errorReason'],
  ['errorReason with block', { urlPattern: '*', kind: 'block', errorReason: 'Failed' }, 'errorReason'],
  ['body with fail', { urlPattern: '*', kind: 'fail', body: 'x' }, 'body'],
  ['status with block', { urlPattern: '*', kind: 'block', status: 200 }, 'status'],
  ['unknown resource type', { urlPattern: '*', kind: 'block', resourceTypes: ['XHR' as never] }, 'resourceTypes'],
  ['a method that is not one', { urlPattern: '*', kind: 'block', methods: ['GET /'] }, 'methods'],
];

for (const [name, spec, param] of refusals) {
  t.test(`refused, nothing added: ${name}`, async (t) => {
    const r = new TabRoutes();
    let err: unknown;
    try {
      r.add(spec);
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof BrowserdError, 'a BrowserdError');
    t.equal((err as BrowserdError).code, 'validation_error');
    t.match((err as BrowserdError).message, `"${param}"`, 'the message names the parameter');
    t.ok((err as BrowserdError).next, 'with a next step');
    t.equal(r.size, 0);
    t.throws(() => checkRouteSpec(spec), { code: 'validation_error' }, 'the tool\'s check refuses it too');
  });
}

t.test(`the ${MAX_ROUTES_PER_TAB + 1}st route is refused and the first ${MAX_ROUTES_PER_TAB} stay`, async (t) => {
  const r = new TabRoutes();
  for (let i = 0; i < MAX_ROUTES_PER_TAB; i++) r.add({ urlPattern: `/p${i}`, kind: 'block' });
  t.throws(() => r.add({ urlPattern: '/one-more', kind: 'block' }), { code: 'validation_error' });
  t.equal(r.size, MAX_ROUTES_PER_TAB);
  t.notOk(r.list().some((x) => x.urlPattern === '/one-more'));
});
