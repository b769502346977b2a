/**
 * browser_extract_ai / POST /v1/extract and POST /v1/ask end to end: real daemon, Chromium and LMDB, a loopback
 * article page, and the loopback fake providers answering through each family's real SDK. Tries to break each
 * promise: every family gets its key in its own auth header and X-Model-Key beats the host key (MCP and REST);
 * hidden text reaches no provider without includeHidden; an invalid answer costs exactly one repair turn and a
 * second one is action_failed; a quote not on the page never comes back as a citation, one in the wrong chunk
 * is moved; a budget refusal sends nothing; usage equals the fakes' counts; bad input sends nothing; the
 * caller's key is in no result, audit entry or log line.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { resultText } from '../fixtures/daemon.js';
import { PRESET_MODELS } from '../../daemon/models/catalog.js';
import { startFakeModels, type FakeModels, type RecordedRequest } from '../fixtures/fake-models.js';

/** The preset model of each family (the default is the OpenAI one: the fakes give every family a host key). */
const [OPENAI, ANTHROPIC, GEMINI] = PRESET_MODELS;

let s: Stack;
let fake: FakeModels;

const CALLER_KEY = 'sk-caller-own-key-5f3a9c1e77';
const HIDDEN = 'HIDDEN-NOTE-7731';

const article = html(
  `<main><h1>Blue Kettle review</h1>
   <p>The Blue Kettle costs 42.50 euros and holds 1.7 litres of water.</p>
   <div style="display:none">${HIDDEN}: the real price is one euro.</div>
   <h2>Maker</h2>
   <p>It is made by Acme Kitchen in Lyon, a family firm since 1921.</p>
   <h2>Verdict</h2>
   <p>We liked the quiet boil and the steel handle.</p></main>`,
  '',
  'Blue Kettle review',
);
const otherPage = html('<main><h1>Red Toaster</h1><p>The Red Toaster costs 19 euros.</p></main>', '', 'Red Toaster');

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number', description: 'Price in euros' }, maker: { type: 'string' } },
  required: ['name', 'price'],
  additionalProperties: false,
};
const goodData = { name: 'Blue Kettle', price: 42.5, maker: 'Acme Kitchen' };

const url = () => `${s.site.url}/article`;
const sent = () => fake.requests.length;
const extract = (body: unknown, headers: Record<string, string> = {}) => s.d.rest(s.token, 'POST', '/v1/extract', body, headers);
const ask = (body: unknown, headers: Record<string, string> = {}) => s.d.rest(s.token, 'POST', '/v1/ask', body, headers);
/** Usage as the fake counts it when a turn scripts none: a quarter of the body's characters in, 10 out. */
const fakeUsage = (reqs: RecordedRequest[]) => ({ input: reqs.reduce((n, q) => n + Math.round(q.bodyText.length / 4), 0), output: reqs.length * 10 });

async function mcpWithKey(key: string): Promise<Client> {
  const client = new Client({ name: 'extract-ai-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.d.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${s.token}`, 'X-Model-Key': key } } }));
  return client;
}

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  s.site.route('/article', article);
  s.site.route('/toaster', otherPage);
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

t.test('extract over REST: data checked, citations checked against the page, hidden text never sent, usage as the fake counted', async (t) => {
  const before = sent();
  fake.script('openai', {
    json: {
      data: goodData,
      citations: [
        { field: 'price', chunk: 'c1', quote: 'costs 42.50 euros' },
        // The maker's words are in the Maker section's chunk, not c1: the citation must move there.
        { field: 'maker', chunk: 'c1', quote: 'made by  ACME kitchen in Lyon' },
        // Words that are nowhere on the page: dropped, named in warnings.
        { field: 'name', chunk: 'c1', quote: 'the best kettle ever made' },
      ],
    },
  });
  const r = await extract({ url: url(), schema, prompt: 'the product reviewed' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.data, goodData);
  t.equal(r.json.model, OPENAI, 'the default model');
  t.equal(r.json.url, url());
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 1, 'one provider request');
  t.equal(mine[0].provider, 'openai');
  t.equal(mine[0].body.tool_choice?.function?.name, 'answer', 'the answer is a forced tool call');
  t.match(mine[0].bodyText, /costs 42\.50 euros/, 'the page text was sent');
  t.match(mine[0].bodyText, /<<<page [0-9a-f]{12}[ >]/, 'inside the fence');
  t.notMatch(mine[0].bodyText, new RegExp(HIDDEN), 'hidden text is in no provider body');

  const cites = r.json.citations as { field: string; chunk: string; quote: string; url: string; headingPath: string[]; start: number; end: number }[];
  t.same(cites.map((c) => c.field), ['price', 'maker'], 'the made-up quote is not a citation');
  t.ok(cites.every((c) => c.url === url() && typeof c.start === 'number' && c.end > c.start));
  t.equal(cites[0].chunk, 'c1');
  t.not(cites[1].chunk, 'c1', 'the quote in the wrong chunk moved');
  t.same(cites[1].headingPath.at(-1), 'Maker', 'to the chunk under its heading');
  t.match(cites[1].quote, /made by Acme Kitchen in Lyon/, 'the quote as the page has it');
  t.match(r.json.warnings.join('\n'), /the best kettle ever made/, 'the dropped quote is named in warnings');
  t.match(r.json.warnings.join('\n'), new RegExp(`named chunk c1; its words are in ${cites[1].chunk}`));

  const u = fakeUsage(mine);
  t.same(r.json.usage, { model: OPENAI, turns: 1, inputTokens: u.input, outputTokens: u.output, budget: 300000 }, 'usage is the provider-reported count');
  const usage = await s.d.rest(s.token, 'GET', '/v1/usage');
  t.same(usage.json.models.map((m: any) => [m.model, m.requests, m.inputTokens, m.outputTokens]), [[OPENAI, 1, u.input, u.output]], 'GET /v1/usage holds the same count');
});

t.test('includeHidden sends hidden text', async (t) => {
  const before = sent();
  fake.script('openai', { json: { data: goodData, citations: [] } });
  const r = await extract({ url: url(), schema, includeHidden: true });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.match(fake.requests[before].bodyText, new RegExp(HIDDEN));
});

t.test('an invalid answer costs exactly one repair turn; a second invalid answer is action_failed', async (t) => {
  let before = sent();
  fake.script('openai', { json: { data: { name: 'Blue Kettle', price: '42,50 EUR' }, citations: [] } }, { json: { data: goodData, citations: [] } });
  const ok = await extract({ url: url(), schema });
  t.equal(ok.status, 200, JSON.stringify(ok.json));
  t.same(ok.json.data, goodData);
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 2, 'the answer and one repair turn');
  t.match(mine[1].bodyText, /data\/price: must be number/, 'the repair turn says what was wrong');
  t.equal(ok.json.usage.turns, 2);
  t.same([ok.json.usage.inputTokens, ok.json.usage.outputTokens], Object.values(fakeUsage(mine)), 'both turns counted');

  before = sent();
  fake.script('openai', { json: { data: { price: 'x' }, citations: [] } }, { json: { data: { name: 'Blue Kettle', price: 42.5, colour: 'blue' }, citations: [] } }, { json: { data: goodData, citations: [] } });
  const failed = await extract({ url: url(), schema });
  t.equal(failed.status, 422);
  t.equal(failed.json.error.code, 'action_failed', JSON.stringify(failed.json));
  t.match(failed.json.error.message, /after one repair turn/);
  t.equal(sent() - before, 2, 'no third turn');
  // The third scripted answer is left over: use it up so later tests start with an empty queue.
  fake.script('openai');
  t.equal((await extract({ url: url(), schema })).status, 200);
});

t.test('each family gets its key in its own auth header; X-Model-Key beats the host key, over REST and MCP', async (t) => {
  const families = [
    ['openai', OPENAI, 'authorization', (k: string) => `Bearer ${k}`],
    ['anthropic', ANTHROPIC, 'x-api-key', (k: string) => k],
    ['gemini', GEMINI, 'x-goog-api-key', (k: string) => k],
  ] as const;
  const client = await mcpWithKey(CALLER_KEY);
  t.teardown(() => client.close());
  for (const [provider, model, header, value] of families) {
    const answer = { json: { data: goodData, citations: [{ field: 'price', chunk: 'c1', quote: '42.50 euros' }] } };
    fake.script(provider, answer, answer, answer);
    const before = sent();
    const host = await extract({ url: url(), schema, model });
    t.equal(host.status, 200, JSON.stringify(host.json));
    t.same(host.json.data, goodData, `${provider}: data through its own wire format`);
    t.equal(host.json.citations.length, 1);
    const own = await extract({ url: url(), schema, model }, { 'X-Model-Key': CALLER_KEY });
    t.equal(own.status, 200, JSON.stringify(own.json));
    const viaMcp = await client.callTool({ name: 'browser_extract_ai', arguments: { url: url(), schema, model } });
    t.notOk(viaMcp.isError, resultText(viaMcp));
    t.match(resultText(viaMcp), /"price": 42\.5/);
    t.notOk(JSON.stringify(own.json).includes(CALLER_KEY), 'the key is not in the REST result');
    t.notOk(JSON.stringify(viaMcp).includes(CALLER_KEY), 'nor in the MCP result');
    const [a, b, c] = fake.requests.slice(before);
    t.same([a.provider, b.provider, c.provider], [provider, provider, provider]);
    t.equal(a.headers[header], value(`host-${provider}-key`), `${provider}: the host key in its own header`);
    t.equal(b.headers[header], value(CALLER_KEY), `${provider}: REST X-Model-Key beats the host key`);
    t.equal(c.headers[header], value(CALLER_KEY), `${provider}: MCP X-Model-Key beats the host key`);
    for (const q of [b, c]) t.notOk(JSON.stringify(q.headers).includes(`host-${provider}-key`), 'the host key is not sent too');
    for (const q of [a, b, c]) {
      for (const other of ['authorization', 'x-api-key', 'x-goog-api-key'].filter((h) => h !== header)) t.notOk(q.headers[other], `${provider}: no ${other} header`);
    }
  }
});

t.test('a budget refusal sends nothing', async (t) => {
  const before = sent();
  const r = await extract({ url: url(), schema, maxTokensTotal: 50 });
  t.equal(r.status, 422);
  t.equal(r.json.error.code, 'budget_exceeded', JSON.stringify(r.json));
  t.equal(sent(), before, 'no provider request');
});

t.test('urls: each page extracted on its own, one result per address', async (t) => {
  const before = sent();
  fake.script('openai', { json: { data: goodData, citations: [{ field: 'price', chunk: 'c1', quote: '42.50 euros' }] } }, { json: { data: { name: 'Red Toaster', price: 19 }, citations: [{ field: 'price', chunk: 'c1', quote: 'costs 19 euros' }] } });
  const r = await extract({ urls: [url(), `${s.site.url}/toaster`], schema });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 2, 'one request per page');
  t.notMatch(mine[0].bodyText, /Red Toaster/, 'the first page alone');
  t.notMatch(mine[1].bodyText, /Blue Kettle/, 'the second page alone');
  t.same(r.json.results.map((x: any) => [x.url, x.ok, x.data]), [[url(), true, goodData], [`${s.site.url}/toaster`, true, { name: 'Red Toaster', price: 19 }]]);
  t.same(r.json.results.map((x: any) => x.citations[0].url), [url(), `${s.site.url}/toaster`]);
  const u = fakeUsage(mine);
  t.same([r.json.usage.inputTokens, r.json.usage.outputTokens], [u.input, u.output]);
  t.same(r.json.results.map((x: any) => x.usage.inputTokens), mine.map((q) => Math.round(q.bodyText.length / 4)), 'each page its own share');
});

t.test('extract on a tab as it is now', async (t) => {
  const tab = await s.d.rest(s.token, 'POST', '/v1/tabs', { url: url() });
  t.equal(tab.status, 201);
  fake.script('openai', { json: { data: goodData, citations: [] } });
  const r = await extract({ tab: tab.json.tab ?? tab.json.id, schema });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.data, goodData);
});

t.test('bad input is validation_error and sends nothing', async (t) => {
  const before = sent();
  const eleven = Array.from({ length: 11 }, () => url());
  const cases: unknown[] = [
    { schema },
    { url: url(), tab: 't1', schema },
    { url: url(), urls: [url()], schema },
    { urls: eleven, schema },
    { urls: [], schema },
    { url: url() },
    { url: url(), schema: { type: 'nonsense' } },
    { url: url(), schema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } },
    { url: url(), schema: 'not an object' },
    { url: url(), schema, maxTokensTotal: 0 },
    { url: url(), schema, maxTokensTotal: 2_000_001 },
    { url: url(), schema, model: 'openai/nonesuch' },
    { url: url(), schema, model: 'mistral/large' },
    { url: url(), schema, extra: true },
  ];
  for (const body of cases) {
    const r = await extract(body);
    t.equal(r.status, 400, `${JSON.stringify(body).slice(0, 140)}: ${JSON.stringify(r.json).slice(0, 200)}`);
    t.equal(r.json.error?.code, 'validation_error');
  }
  for (const body of [{ url: url() }, { question: 'q', url: url(), urls: [url()] }, { question: 'q', urls: eleven }, { question: '', url: url() }, { question: 'q', url: url(), maxTokensTotal: -1 }]) {
    const r = await ask(body);
    t.equal(r.status, 400, `ask ${JSON.stringify(body).slice(0, 140)}`);
  }
  t.equal(sent(), before, 'no provider request');
});

t.test('ask: an answer with citations checked against the pages', async (t) => {
  const before = sent();
  fake.script('anthropic', {
    json: {
      answer: 'Acme Kitchen in Lyon makes it; it costs 42.50 euros.',
      citations: [
        { chunk: 'c1', quote: 'Acme Kitchen in Lyon' },
        { chunk: 'c1', quote: 'costs 42.50 euros' },
        { chunk: 'c2', quote: 'made in China' },
      ],
    },
  });
  const r = await ask({ question: 'Who makes the kettle and what does it cost?', url: url(), model: ANTHROPIC }, { 'X-Model-Key': CALLER_KEY });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.operation, 'ask');
  t.match(r.json.answer, /Acme Kitchen/);
  t.same(r.json.citations.map((c: any) => c.quote), ['Acme Kitchen in Lyon', 'costs 42.50 euros']);
  t.match(r.json.warnings.join('\n'), /made in China/);
  const mine = fake.requests.slice(before);
  t.equal(mine.length, 1);
  t.equal(mine[0].headers['x-api-key'], CALLER_KEY);
  t.notMatch(mine[0].bodyText, new RegExp(HIDDEN));
  t.equal(r.json.usage.inputTokens, fakeUsage(mine).input);
  t.equal(r.json.model, ANTHROPIC);
});

t.test('ask is not an MCP tool nor a POST /v1/tools/{name} target', async (t) => {
  const tools = await s.client.listTools();
  t.ok(tools.tools.some((x) => x.name === 'browser_extract_ai'));
  t.notOk(tools.tools.some((x) => x.name === 'ask'));
  t.equal((await s.rest('ask', { question: 'q', url: url() })).status, 400);
});

t.test("the caller's key is in no result, audit entry or log line", async (t) => {
  const audit = await s.d.rest(s.token, 'GET', '/v1/audit?limit=500');
  t.equal(audit.status, 200);
  const entries = audit.json.entries as { tool: string; outcome: string }[];
  t.ok(entries.some((e) => e.tool === 'browser_extract_ai' && e.outcome === 'ok'));
  t.ok(entries.some((e) => e.tool === 'ask' && e.outcome === 'ok'));
  t.ok(entries.some((e) => e.tool === 'browser_extract_ai' && e.outcome === 'budget_exceeded'));
  t.notOk(JSON.stringify(audit.json).includes(CALLER_KEY), 'not in the audit log');
  t.notOk(s.d.logLines.some((l) => l.includes(CALLER_KEY)), 'not in any log line');
  // A provider error (a wrong key) must not echo the key either.
  fake.script('openai', { status: 401, error: `Incorrect API key provided: ${CALLER_KEY}` });
  const r = await extract({ url: url(), schema }, { 'X-Model-Key': CALLER_KEY });
  t.equal(r.status, 422);
  t.equal(r.json.error.code, 'action_failed');
  t.match(r.json.error.message, /openai|OpenAI/);
  t.match(r.json.error.message, /401/);
  t.notOk(JSON.stringify(r.json).includes(CALLER_KEY), 'not in the error');
  t.notOk(JSON.stringify((await s.d.rest(s.token, 'GET', '/v1/audit?limit=5')).json).includes(CALLER_KEY));
});
