/**
 * POST /v1/research end to end: a loopback SearXNG-JSON fake finds loopback fixture pages, the daemon reads
 * them in real Chromium (hidden text left out), the fake OpenAI answers with citations of which one is made
 * up; only quotes really on the pages come back. Stored under res_ ids for their owner only; bad input costs
 * no provider request; the caller's model key reaches the provider's auth header and nothing else.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { startFakeSearch, type FakeSearch } from '../fixtures/fake-search.js';
import { searxng } from '../../daemon/search/backends.js';
import { RESEARCH_ID } from '../../protocol/tasks.js';

const USER_KEY = 'sk-research-caller-key-5d1f0c9e';
const HIDDEN = 'HIDDEN-RESEARCH-TEXT-77';

let s: Stack;
let fake: FakeModels;
let search: FakeSearch;
let bob: string;
const answers: string[] = [];

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  search = await startFakeSearch();
  s.d.daemon.env.search = searxng(search.url);
  bob = await s.d.addUser('bob');
  s.site.route('/aurora', html(`<h1>Aurora kettle</h1><p>The Aurora kettle boils one litre of water in 95 seconds.</p><div style="display:none">${HIDDEN} says the kettle is free.</div>`, '', 'Aurora review'));
  s.site.route('/aurora-specs', html('<h1>Specifications</h1><h2>Power</h2><p>The Aurora kettle has a 2200 watt heating element and a steel body.</p>', '', 'Aurora specs'));
  search.results = [
    { title: 'Aurora review', url: `${s.site.url}/aurora`, content: 'A review of the kettle' },
    { title: 'Not a web page', url: 'ftp://files.test/aurora.txt', content: 'skipped: not http' },
    { title: 'Aurora specs', url: `${s.site.url}/aurora-specs`, content: 'Specifications' },
    { title: 'Third', url: `${s.site.url}/aurora-third`, content: 'beyond maxSources' },
  ];
});
t.teardown(async () => {
  await s.stop();
  await search.close();
  await fake.close();
});

const research = async (body: unknown, token = s.token, headers: Record<string, string> = { 'X-Model-Key': USER_KEY }) => {
  const r = await s.d.rest(token, 'POST', '/v1/research', body, headers);
  answers.push(JSON.stringify(r.json));
  return r;
};

t.test('the answer keeps only quotes that are on the pages, drops a made-up one, and is stored', async (t) => {
  fake.script('openai', {
    json: {
      answer: 'The Aurora kettle boils a litre in 95 seconds with a 2200 watt element.',
      citations: [
        { chunk: 'c1', url: `${s.site.url}/aurora`, quote: 'boils one litre of water in 95 seconds' },
        // Named in the wrong chunk: moved to the one that holds it.
        { chunk: 'c1', url: `${s.site.url}/aurora-specs`, quote: 'has a 2200   WATT heating element' },
        { chunk: 'c2', url: `${s.site.url}/aurora`, quote: 'the kettle plays music while it boils' },
      ],
    },
  });
  const before = fake.requests.length;
  const r = await research({ question: 'How fast does the Aurora kettle boil?', maxSources: 2 });
  t.equal(r.status, 201, JSON.stringify(r.json));
  const rec = r.json.research;
  t.match(r.json.id, RESEARCH_ID);
  t.equal(rec.id, r.json.id);
  t.same(search.queries.at(-1), 'How fast does the Aurora kettle boil?');
  t.same(rec.sources.map((x: any) => [x.url, x.ok]), [[`${s.site.url}/aurora`, true], [`${s.site.url}/aurora-specs`, true]], 'the first two readable results, the ftp one skipped');
  t.equal(rec.citations.length, 2, 'the made-up quote is not a citation');
  const pageText: Record<string, string> = {
    [`${s.site.url}/aurora`]: 'The Aurora kettle boils one litre of water in 95 seconds.',
    [`${s.site.url}/aurora-specs`]: 'The Aurora kettle has a 2200 watt heating element and a steel body.',
  };
  for (const c of rec.citations) {
    t.ok(pageText[c.url]?.toLowerCase().includes(c.quote.toLowerCase().replace(/\s+/g, ' ')), `"${c.quote}" is on ${c.url}`);
    t.ok(c.end > c.start);
  }
  t.same(rec.citations[1].headingPath.at(-1), 'Power', 'the moved citation names its real section');
  t.ok(rec.warnings.some((w: string) => w.includes('plays music')), 'the dropped quote is named in warnings');
  t.notOk(JSON.stringify(rec.citations).includes('plays music'));
  t.equal(rec.answer, 'The Aurora kettle boils a litre in 95 seconds with a 2200 watt element.');
  t.match(rec.model, /^openai\//, 'the default model: the first preset with a host key');

  const sent = fake.requests.slice(before);
  t.equal(sent.length, 1, 'one provider request');
  t.equal(sent[0]!.headers.authorization, `Bearer ${USER_KEY}`, "the caller's key in OpenAI's own header");
  t.match(sent[0]!.bodyText, /boils one litre of water in 95 seconds/);
  t.match(sent[0]!.bodyText, /<<<page [0-9a-f]{12}[ >]/, 'page text is fenced');
  t.notOk(sent[0]!.bodyText.includes(HIDDEN), 'hidden text never reaches the provider');
  t.same(rec.usage.turns, 1);
  t.equal(rec.usage.inputTokens, Math.round(sent[0]!.bodyText.length / 4), 'usage as the fake reported it');

  const got = await s.d.rest(s.token, 'GET', `/v1/research/${rec.id}`);
  answers.push(JSON.stringify(got.json));
  t.equal(got.status, 200);
  t.same(got.json.research, rec, 'GET answers what POST answered');

  const other = await s.d.rest(bob, 'GET', `/v1/research/${rec.id}`);
  t.equal(other.status, 404);
  t.equal(other.json.error.code, 'not_found', "another user's research is not found");

  const audit = await s.d.rest(s.token, 'GET', '/v1/audit?limit=20');
  const entry = audit.json.entries.find((e: any) => e.tool === 'research');
  t.ok(entry, 'the research call is audited');
  t.equal(entry.outcome, 'ok');
  t.notOk(JSON.stringify(audit.json).includes(USER_KEY), 'no key in the audit log');
});

t.test('an answer in the wrong shape gets one repair turn, then action_failed', async (t) => {
  fake.script('openai', { text: 'not json at all' }, { json: { answer: 'The kettle boils in 95 seconds.', citations: [{ chunk: 'c1', url: `${s.site.url}/aurora`, quote: '95 seconds' }] } });
  const ok = await research({ question: 'Aurora boiling time?', maxSources: 1 });
  t.equal(ok.status, 201, JSON.stringify(ok.json));
  t.equal(ok.json.research.usage.turns, 2, 'one repair turn');
  t.equal(ok.json.research.citations.length, 1);

  fake.script('openai', { text: 'still not json' }, { text: '{"answer": 3}' });
  const bad = await research({ question: 'Aurora boiling time?', maxSources: 1 });
  t.equal(bad.status, 422);
  t.equal(bad.json.error.code, 'action_failed');
});

t.test('bad input is refused before any search or provider request', async (t) => {
  const requests = fake.requests.length;
  const queries = search.queries.length;
  for (const body of [{ question: 'x', maxSources: 21 }, { question: 'x', maxSources: 0 }, { question: '' }, {}, { question: 'x', model: 'openai/not-a-model' }, { question: 'x', maxTokensTotal: 0 }, { question: 'x', extra: 1 }]) {
    const r = await research(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json.error.code, 'validation_error');
  }
  const tiny = await research({ question: 'How fast does the Aurora kettle boil?', maxSources: 1, maxTokensTotal: 50 });
  t.equal(tiny.status, 422);
  t.equal(tiny.json.error.code, 'budget_exceeded', 'a budget the pages cannot fit in is refused');
  t.equal(fake.requests.length, requests, 'no provider request for any of them');
  t.equal(search.queries.length, queries + 1, 'only the budget case got as far as searching');
  const badId = await s.d.rest(s.token, 'GET', '/v1/research/res_nothex');
  t.equal(badId.status, 400);
});

t.test('no model key in results, audit or logs', async (t) => {
  const audit = JSON.stringify(s.d.daemon.env.audit.all(10_000));
  t.notOk(audit.includes(USER_KEY));
  t.notOk(s.d.logLines.some((l) => l.includes(USER_KEY)), 'no log line carries the key');
  t.notOk(answers.some((a) => a.includes(USER_KEY)), 'no answer carries the key');
});

t.test('a vault value a page shows is hidden before a model reads the page', async (t) => {
  const VAULT = 'vault-username-shown-4c7e19';
  const put = await s.d.rest(s.token, 'PUT', '/v1/vault/127.0.0.1', { fields: { username: VAULT } });
  t.equal(put.status, 200, JSON.stringify(put.json));
  s.site.route('/welcome', html(`<h1>Welcome back</h1><p>Signed in as ${VAULT}. The Aurora kettle ships in two days.</p>`, '', 'Welcome'));
  search.results = [{ title: 'Welcome', url: `${s.site.url}/welcome`, content: 'account page' }];
  fake.script('openai', { json: { answer: 'It ships in two days.', citations: [{ chunk: 'c1', url: `${s.site.url}/welcome`, quote: 'ships in two days' }] } });
  const before = fake.requests.length;
  const r = await research({ question: 'When does the Aurora kettle ship?', maxSources: 1 });
  t.equal(r.status, 201, JSON.stringify(r.json));
  const sent = fake.requests.slice(before);
  t.equal(sent.length, 1);
  t.match(sent[0].bodyText, /ships in two days/, 'the page itself was sent');
  t.notOk(sent[0].bodyText.includes(VAULT), 'but not the vault value it shows');
  t.notOk(JSON.stringify(r.json).includes(VAULT));
});
