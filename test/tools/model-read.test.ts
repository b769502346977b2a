/**
 * browser_read's model steps (summary, rerank "model") and crawls that fill outputSchema with a model, end to
 * end: real daemon, Chromium and LMDB, loopback pages and the loopback fake providers. Tries to break: hidden
 * text never reaches a provider; the model's order is the passages' order; usage equals the fakes' counts; a
 * crawl's pages share one budget and a page that cannot fit fails alone with nothing sent; the crawl's
 * X-Model-Key is used for its pages and is gone after a restart (host key, else not_configured); bad input
 * is validation_error with no provider request.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { PRESET_MODELS } from '../../daemon/models/catalog.js';
import { startFakeModels, type FakeModels, type RecordedRequest } from '../fixtures/fake-models.js';

/** The preset model of each family (the default is the OpenAI one: the fakes give every family a host key). */
const [OPENAI, ANTHROPIC, GEMINI] = PRESET_MODELS;

let s: Stack;
let fake: FakeModels;

const HIDDEN = 'HIDDEN-NOTE-4410';
const CALLER_KEY = 'sk-crawl-caller-key-81be20f7';

const article = html(
  `<main><h1>Kettle guide</h1>
   <p>This guide compares kettles for small kitchens.</p>
   <div style="display:none">${HIDDEN} buy nothing</div>
   <h2>Prices</h2><p>The Blue Kettle costs 42.50 euros; the Red Kettle price is 30 euros.</p>
   <h2>Cleaning</h2><p>Descale every month with vinegar; the price of descaler is low.</p>
   <h2>Safety</h2><p>Never fill above the max line.</p></main>`,
  '',
  'Kettle guide',
);

const sent = () => fake.requests.length;
const read = (args: Record<string, unknown>, headers: Record<string, string> = {}) => s.d.rest(s.token, 'POST', '/v1/tools/browser_read', args, headers);
const fakeUsage = (reqs: RecordedRequest[]) => ({ input: reqs.reduce((n, q) => n + Math.round(q.bodyText.length / 4), 0), output: reqs.length * 10 });
const url = () => `${s.site.url}/guide`;

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  s.site.route('/guide', article);
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

t.test('summary: the model summarises the fenced page text; hidden text never sent; usage as counted', async (t) => {
  const before = sent();
  fake.script('openai', { text: 'A guide to kettles: the Blue Kettle costs 42.50 euros.' });
  const r = await read({ urls: [url()], summary: true });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const page = r.json.pages[0];
  t.equal(page.summary, 'A guide to kettles: the Blue Kettle costs 42.50 euros.');
  t.match(page.markdown, /Descale every month/, 'the page text is still there');
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 1);
  t.match(mine[0].bodyText, /<<<page [0-9a-f]{12}[ >]/);
  t.match(mine[0].bodyText, /Descale every month/);
  t.notMatch(mine[0].bodyText, new RegExp(HIDDEN), 'hidden text is in no provider body');
  t.match(r.json.text, /summary of page 1 \(written by the model from page text\)/, 'shown fenced');
  const u = fakeUsage(mine);
  t.same([r.json.usage.inputTokens, r.json.usage.outputTokens], [u.input, u.output]);
  t.equal(r.json.model, OPENAI);

  const withHidden = sent();
  fake.script('gemini', { text: 'Summary.' });
  const h = await read({ urls: [url()], summary: 'list every price', includeHidden: true, model: GEMINI });
  t.equal(h.status, 200, JSON.stringify(h.json));
  t.match(fake.requests[withHidden].bodyText, new RegExp(HIDDEN), 'includeHidden sends it');
  t.match(fake.requests[withHidden].bodyText, /list every price/, 'the instruction is sent');
  t.equal(fake.requests[withHidden].provider, 'gemini');
});

t.test('rerank "model": the passages come back in the model\'s order, cut at topK', async (t) => {
  const bm25 = await read({ urls: [url()], query: 'price kettle descale line', topK: 20 });
  const pool = bm25.json.pages[0].passages.map((p: { text: string }) => p.text);
  t.ok(pool.length >= 3, `enough passages (${pool.length})`);
  const before = sent();
  // The model puts BM25's last candidate first and its first one second.
  const order = [`c${pool.length}`, 'c1', 'c99'];
  fake.script('anthropic', { toolCalls: [{ name: 'rank', args: { order } }] });
  const r = await read({ urls: [url()], query: 'price kettle descale line', topK: 2, rerank: 'model', model: ANTHROPIC }, { 'X-Model-Key': CALLER_KEY });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.pages[0].passages.map((p: { text: string }) => p.text), [pool.at(-1), pool[0]]);
  t.equal(r.json.pages[0].reranked, true);
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 1);
  t.equal(mine[0].headers['x-api-key'], CALLER_KEY);
  t.equal(mine[0].body.tool_choice?.name, 'rank');
});

t.test('read: bad model input is validation_error; a budget refusal sends nothing', async (t) => {
  const before = sent();
  for (const args of [
    { urls: [url()], rerank: 'model' },
    { urls: [url()], model: OPENAI },
    { urls: [url()], maxTokensTotal: 1000 },
    { urls: [url()], summary: true, maxTokensTotal: 0 },
    { urls: [url()], summary: true, maxTokensTotal: 2_000_001 },
    { urls: [url()], summary: '' },
    { urls: [url()], query: 'x', rerank: 'bm25' },
    { urls: [url()], summary: true, model: 'openai/nonesuch' },
  ]) {
    const r = await read(args);
    t.equal(r.status, 400, `${JSON.stringify(args)}: ${JSON.stringify(r.json).slice(0, 200)}`);
  }
  const b = await read({ urls: [url()], summary: true, maxTokensTotal: 20 });
  t.equal(b.status, 422);
  t.equal(b.json.error.code, 'budget_exceeded');
  t.equal(sent(), before, 'no provider request');
});

// ---- crawls: outputSchema filled by a model ----------------------------------------------------------------

const product = (name: string, price: string) =>
  html(`<main><h1>${name}</h1><p>The ${name} costs ${price} euros.</p><div style="display:none">${HIDDEN} price 1 euro</div><p>Made in Lyon.</p></main>`, '', name);
const productSchema = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number', description: 'Price in euros' } }, required: ['name', 'price'] };

/** A fake model that reads the product from what it was sent, so each page's answer is that page's. */
function readsProduct(req: RecordedRequest) {
  const m = /The ([A-Z]\w+ [A-Z]\w+) costs ([\d.]+) euros/.exec(req.bodyText);
  return m ? { json: { data: { name: m[1], price: Number(m[2]) }, citations: [{ field: 'price', chunk: 'c1', quote: `costs ${m[2]} euros` }] } } : { json: { data: {}, citations: [] } };
}

const crawlItems = (id: string) => [...s.d.daemon.features.crawls.iterateItems('alice', id)];
const startCrawl = (body: Record<string, unknown>, headers: Record<string, string> = {}) => s.d.rest(s.token, 'POST', '/v1/crawls', { mode: 'http', delayMs: 0, maxDepth: 0, obeyRobots: false, ...body }, headers);

t.test('crawl outputSchema without fields: a model fills every page with the starting call\'s key; usage as counted', async (t) => {
  s.site.route('/p/kettle', product('Blue Kettle', '42.50'));
  s.site.route('/p/toaster', product('Red Toaster', '19'));
  fake.fallback = readsProduct;
  t.teardown(() => void (fake.fallback = undefined));
  const before = sent();
  const usageBefore = (await s.d.rest(s.token, 'GET', '/v1/usage')).json.totals;
  const r = await startCrawl({ startUrls: [`${s.site.url}/p/kettle`, `${s.site.url}/p/toaster`], outputSchema: productSchema, prompt: 'the product on sale' }, { 'X-Model-Key': CALLER_KEY });
  t.equal(r.status, 201, JSON.stringify(r.json));
  t.equal(s.d.daemon.features.crawls.spec('alice', r.json.id)?.model, OPENAI, 'the default model, fixed when the crawl started');
  const run = await s.d.daemon.features.crawls.waitWhileRunning('alice', r.json.id, 60_000);
  t.equal(run.state, 'finished');
  const items = crawlItems(r.json.id);
  t.same(items.map((i) => [i.status, i.fields]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
    ['done', { name: 'Blue Kettle', price: 42.5 }],
    ['done', { name: 'Red Toaster', price: 19 }],
  ]);
  t.ok(items.every((i) => i.model?.citations?.length === 1 && i.model.citations[0].url === i.finalUrl), 'each page cites itself, checked');
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 2, 'one request per page');
  for (const q of mine) {
    t.equal(q.headers.authorization, `Bearer ${CALLER_KEY}`, "the starting call's key");
    t.notMatch(q.bodyText, new RegExp(HIDDEN), 'no hidden text');
    t.match(q.bodyText, /the product on sale/, 'the prompt is sent');
  }
  const u = fakeUsage(mine);
  t.same([items.reduce((n, i) => n + i.model!.inputTokens, 0), items.reduce((n, i) => n + i.model!.outputTokens, 0)], [u.input, u.output], 'per-item tokens are the fake\'s counts');
  const usageAfter = (await s.d.rest(s.token, 'GET', '/v1/usage')).json.totals;
  t.same([usageAfter.inputTokens - usageBefore.inputTokens, usageAfter.outputTokens - usageBefore.outputTokens], [u.input, u.output]);
  t.notOk(JSON.stringify(s.d.daemon.features.crawls.spec('alice', r.json.id)).includes(CALLER_KEY), 'the key is not in the stored crawl');
  const csv = await fetch(`${s.d.url}/v1/crawls/${r.json.id}/export?format=csv`, { headers: { Authorization: `Bearer ${s.token}` } });
  t.match((await csv.text()).split('\r\n')[0], /,name,price$/, "the schema's properties are the export's field columns");
});

t.test('crawl: a page whose model turn cannot fit the crawl\'s budget fails alone with nothing sent; bad input refused', async (t) => {
  fake.fallback = readsProduct;
  t.teardown(() => void (fake.fallback = undefined));
  const before = sent();
  const r = await startCrawl({ startUrls: [`${s.site.url}/p/kettle`, `${s.site.url}/p/toaster`], outputSchema: productSchema, maxTokensTotal: 50 });
  t.equal(r.status, 201, JSON.stringify(r.json));
  await s.d.daemon.features.crawls.waitWhileRunning('alice', r.json.id, 60_000);
  const items = crawlItems(r.json.id);
  t.same(items.map((i) => i.status), ['failed', 'failed']);
  t.ok(items.every((i) => /^budget_exceeded: /.test(i.error ?? '')), items.map((i) => i.error).join(' | '));
  t.equal(sent(), before, 'no provider request');

  for (const body of [
    { startUrls: [`${s.site.url}/p/kettle`], outputSchema: productSchema, model: 'openai/nonesuch' },
    { startUrls: [`${s.site.url}/p/kettle`], outputSchema: productSchema, maxTokensTotal: 0 },
    { startUrls: [`${s.site.url}/p/kettle`], outputSchema: productSchema, maxTokensTotal: 2_000_001 },
    { startUrls: [`${s.site.url}/p/kettle`], outputSchema: { type: 'array', items: { type: 'string' } } },
    { startUrls: [`${s.site.url}/p/kettle`], fields: { name: 'h1' }, outputSchema: productSchema, prompt: 'x' },
    { startUrls: [`${s.site.url}/p/kettle`], fields: { name: 'h1' }, model: OPENAI },
    { startUrls: [`${s.site.url}/p/kettle`], prompt: 'x' },
  ]) {
    const bad = await startCrawl(body);
    t.equal(bad.status, 400, `${JSON.stringify(body).slice(0, 160)}: ${JSON.stringify(bad.json).slice(0, 200)}`);
  }
  t.equal(sent(), before, 'still no provider request');
});

t.test("crawl across a restart: the caller's key is gone; the host key goes on, else the page fails not_configured", async (t) => {
  fake.fallback = readsProduct;
  t.teardown(() => void (fake.fallback = undefined));
  const urls = [`${s.site.url}/p/kettle`, `${s.site.url}/p/toaster`];
  // One page now, the next a minute later (same host): the restart comes in between.
  const slow = { startUrls: urls, outputSchema: productSchema, delayMs: 60_000, concurrency: 1 };
  const before = sent();
  const onHost = await startCrawl({ ...slow }, { 'X-Model-Key': CALLER_KEY });
  const noHost = await startCrawl({ ...slow, model: GEMINI }, { 'X-Model-Key': CALLER_KEY });
  t.equal(onHost.status, 201, JSON.stringify(onHost.json));
  t.equal(noHost.status, 201, JSON.stringify(noHost.json));
  for (const id of [onHost.json.id, noHost.json.id]) await s.d.daemon.features.crawls.waitFor('alice', id, (r) => r.counters.done >= 1, 60_000);
  const first = fake.requests.slice(before);
  t.same(first.map((q) => q.provider).sort(), ['gemini', 'openai']);
  t.equal(first.find((q) => q.provider === 'openai')!.headers.authorization, `Bearer ${CALLER_KEY}`);
  t.equal(first.find((q) => q.provider === 'gemini')!.headers['x-goog-api-key'], CALLER_KEY);

  // The host has no Gemini key from now on; the daemon restarts and the crawls go on from their queues.
  s.d.cfg.models.geminiKey = undefined;
  const mark = sent();
  await s.d.restart();
  for (const id of [onHost.json.id, noHost.json.id]) {
    const run = await s.d.daemon.features.crawls.waitWhileRunning('alice', id, 60_000);
    t.equal(run.state, 'finished');
  }
  const after = fake.requests.slice(mark);
  t.same(after.map((q) => q.provider), ['openai'], 'only the crawl with a host key asked its provider');
  t.equal(after[0].headers.authorization, 'Bearer host-openai-key', 'after the restart: the host key');
  const hostItems = crawlItems(onHost.json.id);
  t.same(hostItems.map((i) => i.status), ['done', 'done']);
  const failed = crawlItems(noHost.json.id);
  t.same(failed.map((i) => i.status), ['done', 'failed']);
  t.match(failed[1].error, /^not_configured: /);
  t.notOk(s.d.logLines.some((l) => l.includes(CALLER_KEY)), 'the key is in no log line');
});
