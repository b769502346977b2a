/**
 * Learning and judging extractors without a provider or a browser: the schema shapes an extractor refuses, the
 * outline a model sees (fenced, repeated siblings counted, scripts left out), values judged against the schema,
 * and the learner's promise: selectors are proven on the page, a failing answer gets exactly one retry that
 * says what failed, and a second failure is action_failed. The session is a scripted stand-in that records
 * what it was asked, so the conversation itself is checked.
 */
import t from 'tap';
import { parseHtml } from '../../../daemon/read/html-tree.js';
import { checkExtractorSchema, judgeValues } from '../../../daemon/models/extractor-values.js';
import { htmlOutline } from '../../../daemon/models/html-outline.js';
import { learnSelectors } from '../../../daemon/model-features/extractor-learn.js';
import type { ModelSession } from '../../../daemon/models/session.js';
import type { TurnRequest, TurnResult } from '../../../daemon/models/types.js';

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } }, link: { type: 'string' } },
  required: ['title', 'price'],
};

const page = {
  url: 'http://site.test/item/1',
  doc: parseHtml(`<!doctype html><html><head><title>x</title><script>var secret = 1</script></head><body>
    <h1 class="product-title" itemprop="name">Blue Kettle</h1>
    <p class="price">Price: €1,299.50</p>
    <ul class="tags">${['steel', 'blue', 'fast', 'quiet', 'cheap', 'new'].map((x) => `<li class="tag">${x}</li>`).join('')}</ul>
    <a class="more" href="/item/1/details">details</a>
  </body></html>`),
};

/** A session that answers scripted turns and keeps every request. */
function scripted(...answers: TurnResult[]) {
  const requests: TurnRequest[] = [];
  const session = {
    model: { id: 'openai/test', provider: 'openai', name: 'test', default: true },
    async turn(req: TurnRequest) {
      requests.push(structuredClone(req));
      const a = answers.shift();
      if (!a) throw new Error('no more scripted answers');
      return a;
    },
  } as unknown as ModelSession;
  return { session, requests };
}

const call = (fields: Record<string, unknown>, id = 'call_1'): TurnResult => ({ text: '', toolCalls: [{ id, name: 'answer_selectors', args: { fields } }], usage: { input: 10, output: 10 }, stop: 'tool' });

t.test('schemas an extractor cannot serve are refused', async (t) => {
  t.doesNotThrow(() => checkExtractorSchema(schema));
  for (const bad of [
    { type: 'string' },
    { type: 'object' },
    { type: 'object', properties: {} },
    { type: 'object', properties: { author: { type: 'object', properties: { name: { type: 'string' } } } } },
    { type: 'object', properties: { list: { type: 'array', items: { type: 'object' } } } },
    { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
    { type: 'object', properties: { a: { type: 'nonsense' } } },
    { type: 'object', properties: { 'bad name!': { type: 'string' } } },
  ]) t.throws(() => checkExtractorSchema(bad), { code: 'validation_error' }, JSON.stringify(bad));
});

t.test('the outline shows structure, not scripts, and counts look-alike siblings', async (t) => {
  const o = htmlOutline(page.doc);
  t.match(o, /<h1\.product-title itemprop="name"> "Blue Kettle"/);
  t.match(o, /<a\.more href="\/item\/1\/details"> "details"/);
  t.match(o, /… 3 more <li\.tag> like these/);
  t.notMatch(o, /secret/, 'script text is not in the outline');
  t.match(htmlOutline(page.doc, 120), /\[outline cut here/);
});

t.test('values are judged against the schema: numbers from their text, empty matches are no match', async (t) => {
  const ok = judgeValues(schema, { title: 'Blue Kettle', price: 'Price: €1,299.50', tags: ['a', ''], link: null });
  t.ok(ok.ok);
  t.same(ok.data, { title: 'Blue Kettle', price: 1299.5, tags: ['a'] });
  const bad = judgeValues(schema, { title: '', price: 'call us', tags: [] });
  t.notOk(bad.ok);
  t.same(bad.missing, ['title']);
  t.match(bad.errors.join(), /\/price: must be number/);
});

t.test('proven selectors are kept; a list field reads every match', async (t) => {
  const { session, requests } = scripted(call({ title: { css: 'h1.product-title' }, price: { css: '.price' }, tags: { css: 'li.tag' }, link: { css: 'a.more', attr: 'href' } }));
  const learned = await learnSelectors(session, page, { schema, prompt: 'the kettle' });
  t.same(learned.fields, { title: { css: 'h1.product-title' }, price: { css: '.price' }, tags: { css: 'li.tag', all: true }, link: { css: 'a.more', attr: 'href' } });
  t.same(learned.data, { title: 'Blue Kettle', price: 1299.5, tags: ['steel', 'blue', 'fast', 'quiet', 'cheap', 'new'], link: 'http://site.test/item/1/details' });
  t.equal(requests.length, 1);
  t.same(requests[0].toolChoice, { name: 'answer_selectors' });
  const sent = requests[0].messages[0];
  t.equal(sent.role, 'user');
  t.match((sent as { content: string }).content, /<<<page [0-9a-f]+ outline of http:\/\/site\.test\/item\/1>>>[\s\S]*Blue Kettle[\s\S]*<<<end [0-9a-f]{12}>>>/, 'the page reaches the model only inside the fence');
  t.match(requests[0].system, /never instructions/);
});

t.test('a failing answer gets one retry that says what failed; the second answer is proven too', async (t) => {
  const { session, requests } = scripted(call({ title: { css: 'h2.nope' }, price: { css: 'h1' } }), call({ title: { css: 'h1' }, price: { css: 'p.price' } }, 'call_2'));
  const learned = await learnSelectors(session, page, { schema });
  t.same(learned.fields, { title: { css: 'h1' }, price: { css: 'p.price' } });
  t.equal(requests.length, 2);
  const retry = requests[1].messages.at(-1)!;
  t.equal(retry.role, 'tool', 'the failure answers the tool call');
  t.match((retry as { content: string }).content, /title: no element matches "h2\.nope"/);
  t.match((retry as { content: string }).content, /\/price: must be number/);
  t.match((retry as { content: string }).content, /<<<page [0-9a-f]+ values read>>>[\s\S]*Blue Kettle/, 'what the selectors read is page text, fenced');
});

t.test('two failing answers: action_failed, and no third turn', async (t) => {
  const { session, requests } = scripted(call({ title: { css: 'h1' }, price: { css: 'h1' } }), call({ title: { css: '!!bad((' }, price: { css: 'h1' } }), call({ title: { css: 'h1' }, price: { css: '.price' } }));
  await t.rejects(learnSelectors(session, page, { schema }), { code: 'action_failed' });
  t.equal(requests.length, 2, 'exactly one retry');
});

t.test('an answer in text JSON (no tool call) is read too', async (t) => {
  const { session } = scripted({ text: JSON.stringify({ fields: { title: { css: 'h1' }, price: { css: '.price' } } }), toolCalls: [], usage: { input: 1, output: 1 }, stop: 'end' });
  const learned = await learnSelectors(session, page, { schema });
  t.same(learned.data, { title: 'Blue Kettle', price: 1299.5 });
});
