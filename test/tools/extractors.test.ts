/**
 * Learned extractors end to end: real daemon, real Chromium and LMDB, a loopback shop page whose markup the test
 * switches (v1 -> v2 -> v3), and the loopback fake provider answering selectors. Proves: a learn stores an
 * extractor only once its selectors read the schema's fields on the page (one retry, then action_failed); a run
 * sends NO provider request; a markup change makes a run re-learn once and keep the new version; re-learning
 * is tried at most once per run; another user's extractor is not found anywhere (crawls too); bad input is a
 * validation_error with nothing sent or stored; a crawl with `extractor` fills its items' fields.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { EXTRACTOR_ID } from '../../protocol/ids.js';
import type { CrawlItem } from '../../daemon/crawl/types.js';

let s: Stack;
let fake: FakeModels;
let bob: string;
let markup: 'v1' | 'v2' | 'v3' = 'v1';

const items: Record<string, { title: string; price: string; tags: string[] }> = {
  '1': { title: 'Blue Kettle', price: '€ 42.50', tags: ['steel', 'blue'] },
  '2': { title: 'Red Toaster', price: '€ 19.00', tags: ['red'] },
};

function shopPage(n: string): string {
  const it = items[n];
  // The hidden note must never reach a provider: the model sees visible markup only.
  const hidden = '<div style="display:none" class="note">HIDDEN-NOTE-7731</div>';
  if (markup === 'v1') return html(`<main><h1 class="title">${it.title}</h1><span class="price">${it.price}</span><ul>${it.tags.map((x) => `<li class="tag">${x}</li>`).join('')}</ul>${hidden}</main>`, '', it.title);
  if (markup === 'v2') return html(`<div id="product"><h2 class="product-name">${it.title}</h2><p class="now">Now only ${it.price}</p><ul>${it.tags.map((x) => `<li class="chip">${x}</li>`).join('')}</ul>${hidden}</div>`, '', it.title);
  return html(`<section><h3>${it.title}</h3><em>${it.price}</em>${hidden}</section>`, '', it.title);
}

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, price: { type: 'number', description: 'Price in euros' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'price'],
};
const v1Fields = { title: { css: 'h1.title' }, price: { css: '.price' }, tags: { css: 'li.tag' } };
const v2Fields = { title: { css: '#product .product-name' }, price: { css: '#product p.now' }, tags: { css: 'li.chip' } };
const answer = (fields: Record<string, unknown>) => ({ toolCalls: [{ name: 'answer_selectors', args: { fields } }] });

const itemUrl = (n: string) => `${s.site.url}/shop/item/${n}`;
const rest = (method: string, path: string, body?: unknown, token = s.token) => s.d.rest(token, method, path, body);
const sent = () => fake.requests.length;
const storedCount = (user = 'alice') => s.d.daemon.env.extractors.count(user);

let id: string;

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  bob = await s.d.addUser('bob');
  s.site.route('/shop/item/1', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopPage('1'));
  });
  s.site.route('/shop/item/2', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopPage('2'));
  });
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

t.test('learn: the model answers selectors, they are proven on the page, then stored', async (t) => {
  const before = sent();
  fake.script('openai', answer(v1Fields));
  const r = await rest('POST', '/v1/extractors', { url: itemUrl('1'), schema, prompt: 'the product on this page', name: 'shop item' });
  t.equal(r.status, 201, JSON.stringify(r.json));
  id = r.json.id;
  t.match(id, EXTRACTOR_ID);
  t.same(r.json.data, { title: 'Blue Kettle', price: 42.5, tags: ['steel', 'blue'] }, 'the values the proven selectors read, price as a number');
  t.same(r.json.extractor.fields, { title: { css: 'h1.title' }, price: { css: '.price' }, tags: { css: 'li.tag', all: true } }, 'a list field reads every match');
  t.equal(r.json.extractor.version, 1);
  t.equal(sent() - before, 1, 'one provider request');
  const body = fake.requests.at(-1)!.bodyText;
  t.match(body, /Blue Kettle/, 'the model saw the page outline');
  t.notMatch(body, /HIDDEN-NOTE-7731/, 'hidden text is not in the provider body');
  t.match(body, /<<<page [0-9a-f]{12}[ >]/, 'the outline went in the fence');
  const got = await rest('GET', `/v1/extractors/${id}`);
  t.equal(got.status, 200);
  t.equal(got.json.extractor.name, 'shop item');
  t.equal(got.json.extractor.learnedOn, itemUrl('1'));
  const list = await rest('GET', '/v1/extractors');
  t.same(list.json.extractors.map((e: { id: string }) => e.id), [id]);
});

t.test('learn: a wrong answer gets one retry with what failed; two wrong answers store nothing', async (t) => {
  let before = sent();
  fake.script('openai', answer({ title: { css: 'h1.nope' }, price: { css: '.price' } }), answer({ title: { css: 'main h1' }, price: { css: 'span.price' } }));
  const ok = await rest('POST', '/v1/extractors', { url: itemUrl('2'), schema });
  t.equal(ok.status, 201, JSON.stringify(ok.json));
  t.same(ok.json.data, { title: 'Red Toaster', price: 19 });
  t.equal(sent() - before, 2, 'the first answer and one retry');
  t.match(fake.requests.at(-1)!.bodyText, /no element matches \\?"h1\.nope\\?"/, 'the retry says what failed');
  await rest('DELETE', `/v1/extractors/${ok.json.id}`);

  before = sent();
  const count = storedCount();
  fake.script('openai', answer({ title: { css: 'h1.nope' }, price: { css: '.price' } }), answer({ title: { css: 'h1.title' }, price: { css: 'h1.title' } }));
  const failed = await rest('POST', '/v1/extractors', { url: itemUrl('1'), schema });
  t.equal(failed.status, 422);
  t.equal(failed.json.error?.code ?? failed.json.code, 'action_failed', JSON.stringify(failed.json));
  t.equal(sent() - before, 2, 'no third turn');
  t.equal(storedCount(), count, 'nothing stored');
});

t.test("anthropic and gemini learn too: the retry answers the tool call in each family's own form", async (t) => {
  for (const [provider, model] of [['anthropic', 'anthropic/claude-sonnet-4-6'], ['gemini', 'gemini/gemini-flash-latest']] as const) {
    const before = sent();
    fake.script(provider, answer({ title: { css: 'h1.nope' }, price: { css: '.price' } }), answer(v1Fields));
    const r = await rest('POST', '/v1/extractors', { url: itemUrl('2'), schema, model });
    t.equal(r.status, 201, JSON.stringify(r.json));
    t.same(r.json.data, { title: 'Red Toaster', price: 19, tags: ['red'] });
    const mine = fake.requests.slice(before);
    t.same(mine.map((q) => q.provider), [provider, provider], `two ${provider} requests`);
    t.equal(r.json.extractor.model, model);
    t.equal(r.json.usage.inputTokens, mine.reduce((n, q) => n + Math.round(q.bodyText.length / 4), 0), "usage is the provider's count");
    t.equal((await rest('DELETE', `/v1/extractors/${r.json.id}`)).status, 200);
  }
});

t.test('run: selectors on other pages and on a tab, with no provider request', async (t) => {
  const before = sent();
  const r = await rest('POST', `/v1/extractors/${id}/run`, { urls: [itemUrl('2'), itemUrl('1')] });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.results.map((x: { ok: boolean; data: unknown }) => [x.ok, x.data]), [
    [true, { title: 'Red Toaster', price: 19, tags: ['red'] }],
    [true, { title: 'Blue Kettle', price: 42.5, tags: ['steel', 'blue'] }],
  ]);
  const tab = await rest('POST', '/v1/tabs', { url: itemUrl('2') });
  t.equal(tab.status, 201);
  const onTab = await rest('POST', `/v1/extractors/${id}/run`, { tab: tab.json.tab ?? tab.json.id });
  t.equal(onTab.status, 200, JSON.stringify(onTab.json));
  t.same(onTab.json.results[0].data, { title: 'Red Toaster', price: 19, tags: ['red'] });
  t.equal(sent(), before, 'no provider request at all');
  t.equal(r.json.extractor.relearned, false);
});

t.test('markup change: the run re-learns once on that page and keeps the new version', async (t) => {
  markup = 'v2';
  const noModel = sent();
  const refused = await rest('POST', `/v1/extractors/${id}/run`, { url: itemUrl('1'), relearn: false });
  t.equal(refused.status, 200);
  t.same(refused.json.results[0].missing, ['title', 'price'], 'the required fields that stopped matching are named');
  t.equal(sent(), noModel, 'relearn false asks no model');

  const before = sent();
  fake.script('openai', answer(v2Fields));
  const r = await rest('POST', `/v1/extractors/${id}/run`, { urls: [itemUrl('1'), itemUrl('2')] });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(sent() - before, 1, 'one re-learn request');
  t.match(fake.requests.at(-1)!.bodyText, /h1\.title/, 'the re-learn shows the model the selectors that used to work');
  t.same(r.json.results.map((x: { ok: boolean; relearned?: boolean; version: number }) => [x.ok, !!x.relearned, x.version]), [[true, true, 2], [true, false, 2]], 'the second page already uses the new version');
  t.same(r.json.results[1].data, { title: 'Red Toaster', price: 19, tags: ['red'] });
  t.same(r.json.extractor, { id, version: 2, relearned: true });
  const got = await rest('GET', `/v1/extractors/${id}`);
  t.equal(got.json.extractor.version, 2);
  t.same(got.json.extractor.fields.title, { css: '#product .product-name' });

  const again = sent();
  const quiet = await rest('POST', `/v1/extractors/${id}/run`, { url: itemUrl('1') });
  t.ok(quiet.json.results[0].ok);
  t.equal(sent(), again, 'the kept version runs with no model');
});

t.test('a re-learn that fails is tried once per run and keeps the old version', async (t) => {
  markup = 'v3';
  const before = sent();
  fake.script('openai', answer({ title: { css: 'h1' }, price: { css: 'b' } }), answer({ title: { css: 'h2' }, price: { css: 'i' } }));
  const r = await rest('POST', `/v1/extractors/${id}/run`, { urls: [itemUrl('1'), itemUrl('2')] });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(sent() - before, 2, 'one re-learn (with its one retry), not one per page');
  t.same(r.json.results.map((x: { ok: boolean }) => x.ok), [false, false]);
  t.match(r.json.results[0].error, /re-learning failed: action_failed/);
  t.notOk(r.json.results[1].error, 'the second page was not re-learned');
  t.equal((await rest('GET', `/v1/extractors/${id}`)).json.extractor.version, 2);
  markup = 'v2';
});

t.test("another user's extractor is not found anywhere", async (t) => {
  const before = sent();
  for (const [method, path, body] of [
    ['GET', `/v1/extractors/${id}`],
    ['DELETE', `/v1/extractors/${id}`],
    ['POST', `/v1/extractors/${id}/run`, { url: itemUrl('1') }],
    ['POST', '/v1/crawls', { startUrls: [itemUrl('1')], extractor: id, mode: 'http', delayMs: 0 }],
  ] as const) {
    const r = await rest(method, path, body, bob);
    t.equal(r.status, 404, `${method} ${path}`);
  }
  t.same((await rest('GET', '/v1/extractors', undefined, bob)).json.extractors, []);
  t.equal(sent(), before);
  t.ok(s.d.daemon.env.extractors.get('alice', id), "alice's extractor is untouched");
  const unknown = await rest('POST', '/v1/crawls', { startUrls: [itemUrl('1')], extractor: 'ext_0000000000000000', mode: 'http', delayMs: 0 });
  t.equal(unknown.status, 404, 'an unknown extractor is not_found at crawl start');
});

t.test('bad input: validation_error, nothing sent, nothing stored', async (t) => {
  const before = sent();
  const count = storedCount();
  const cases: [string, string, unknown][] = [
    ['POST', '/v1/extractors', { url: itemUrl('1') }],
    ['POST', '/v1/extractors', { schema }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), tab: 't1', schema }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), schema: { type: 'object', properties: { author: { type: 'object', properties: { name: { type: 'string' } } } } } }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] } }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), schema, model: 'openai/nonesuch' }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), schema, maxTokensTotal: 0 }],
    ['POST', '/v1/extractors', { url: itemUrl('1'), schema, extra: 1 }],
    ['POST', `/v1/extractors/${id}/run`, {}],
    ['POST', `/v1/extractors/${id}/run`, { url: itemUrl('1'), urls: [itemUrl('2')] }],
    ['POST', `/v1/extractors/${id}/run`, { urls: Array.from({ length: 21 }, () => itemUrl('1')) }],
    ['GET', '/v1/extractors/ext_nothex', undefined],
    ['POST', '/v1/crawls', { startUrls: [itemUrl('1')], extractor: id, fields: { a: 'h1' } }],
  ];
  for (const [method, path, body] of cases) {
    const r = await rest(method, path, body);
    t.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)?.slice(0, 120)}: ${JSON.stringify(r.json).slice(0, 200)}`);
  }
  t.equal(sent(), before, 'no provider request');
  t.equal(storedCount(), count, 'nothing stored');
});

t.test('a crawl with extractor fills every item with its fields, no model', async (t) => {
  const before = sent();
  const r = await rest('POST', '/v1/crawls', { startUrls: [itemUrl('1'), itemUrl('2')], extractor: id, maxDepth: 0, mode: 'http', delayMs: 0 });
  t.equal(r.status, 201, JSON.stringify(r.json));
  const run = await s.d.daemon.features.crawls.waitWhileRunning('alice', r.json.id, 120_000);
  t.equal(run.state, 'finished');
  const done: CrawlItem[] = [...s.d.daemon.features.crawls.iterateItems('alice', r.json.id)].filter((i) => i.status === 'done');
  t.same(done.map((i) => i.fields).sort((a, b) => String(a?.title).localeCompare(String(b?.title))), [
    { title: 'Blue Kettle', price: 42.5, tags: ['steel', 'blue'] },
    { title: 'Red Toaster', price: 19, tags: ['red'] },
  ]);
  t.notOk(done.some((i) => i.schemaErrors), 'the values satisfy the schema');
  t.same(s.d.daemon.features.crawls.spec('alice', r.json.id)?.extractor, { id, version: 2 });
  t.equal(sent(), before, 'no provider request');
});

t.test('delete', async (t) => {
  const del = await rest('DELETE', `/v1/extractors/${id}`);
  t.equal(del.status, 200);
  t.equal((await rest('GET', `/v1/extractors/${id}`)).status, 404);
  t.equal((await rest('DELETE', `/v1/extractors/${id}`)).status, 404);
});
