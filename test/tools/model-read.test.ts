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
import { startFakeModels, type FakeModels, type RecordedRequest } from '../fixtures/fake-models.js';

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
  t.match(mine[0].bodyText, /<<<page nonce=/);
  t.match(mine[0].bodyText, /Descale every month/);
  t.notMatch(mine[0].bodyText, new RegExp(HIDDEN), 'hidden text is in no provider body');
  t.match(r.json.text, /summary of page 1 \(written by the model from page text\)/, 'shown fenced');
  const u = fakeUsage(mine);
  t.same([r.json.usage.inputTokens, r.json.usage.outputTokens], [u.input, u.output]);
  t.equal(r.json.model, 'openai/gpt-5-mini');

  const withHidden = sent();
  fake.script('gemini', { text: 'Summary.' });
  const h = await read({ urls: [url()], summary: 'list every price', includeHidden: true, model: 'gemini/gemini-2.5-flash' });
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
  const r = await read({ urls: [url()], query: 'price kettle descale line', topK: 2, rerank: 'model', model: 'anthropic/claude-sonnet-4-5' }, { 'X-Model-Key': CALLER_KEY });
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
    { urls: [url()], model: 'openai/gpt-5-mini' },
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
