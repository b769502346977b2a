/**
 * Learned extractors and data-* attributes: a selector that keys on one (`.buy span[data-price]`) matches on the
 * live page, so the outline the model gets shows it and the document its selectors are proven on (and later
 * run on) holds it. Before, both dropped data-*: the right answer was judged "no element matches" and learning
 * failed. Also: what reached the provider carries the system prompt exactly once, in every family.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';

let s: Stack;
let fake: FakeModels;

const schema = { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] };
const fields = { price: { css: '.buy span[data-price]' } };
const answer = { toolCalls: [{ name: 'answer_selectors', args: { fields } }] };
const pageUrl = () => `${s.site.url}/shop/data-attrs`;
const rest = (method: string, path: string, body?: unknown) => s.d.rest(s.token, method, path, body);
const SYSTEM_START = 'You write CSS selectors that read named fields';
const count = (hay: string, needle: string) => hay.split(needle).length - 1;

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  s.site.route('/shop/data-attrs', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    // The price's span is told apart only by its data attribute; the first span is a decoy with a number too.
    res.end(html('<main><div class="buy"><span>2 left</span><span data-price="42.50" data-currency="EUR">42.50</span></div></main>', '', 'Kettle'));
  });
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

t.test('a selector on a data-* attribute is proven, stored and run; the model saw the attribute', async (t) => {
  const before = fake.requests.length;
  fake.script('openai', answer);
  const r = await rest('POST', '/v1/extractors', { url: pageUrl(), schema });
  t.equal(r.status, 201, JSON.stringify(r.json));
  t.same(r.json.data, { price: 42.5 });
  t.equal(fake.requests.length - before, 1, 'proven at the first answer: no retry');
  const body = fake.requests[before]!.bodyText;
  t.match(body, /data-price=\\"42\.50\\"/, 'the outline shows the data attribute');
  const run = await rest('POST', `/v1/extractors/${r.json.id}/run`, { url: pageUrl() });
  t.equal(run.status, 200, JSON.stringify(run.json));
  t.same(run.json.results[0].data, { price: 42.5 }, 'running reads it too, with no model');
  t.equal(fake.requests.length - before, 1);
});

t.test('the system prompt is sent once, in each family', async (t) => {
  for (const [provider, model] of [['openai', 'openai/gpt-5.4-mini'], ['anthropic', 'anthropic/claude-sonnet-4-6'], ['gemini', 'gemini/gemini-flash-latest']] as const) {
    const before = fake.requests.length;
    // A wrong first answer, so the retry (which carries the conversation so far) is checked too.
    fake.script(provider, { toolCalls: [{ name: 'answer_selectors', args: { fields: { price: { css: '.buy span.nope' } } } }] }, answer);
    const r = await rest('POST', '/v1/extractors', { url: pageUrl(), schema, model });
    t.equal(r.status, 201, `${provider}: ${JSON.stringify(r.json)}`);
    const reqs = fake.requests.slice(before);
    t.same(reqs.map((q) => q.provider), [provider, provider], 'the answer and one retry');
    for (const [i, req] of reqs.entries()) {
      t.equal(count(req.bodyText, SYSTEM_START), 1, `${provider}, request ${i + 1}: the system prompt once in the body`);
      t.equal(count(req.bodyText, 'Fields to read (JSON Schema)'), 1, `${provider}, request ${i + 1}: the first message once`);
    }
  }
});
