/**
 * observe / act / validate on a tab, end to end: a loopback fake OpenAI answers from the snapshot it was sent
 * (refs read out of the request, as a real model would), real tools run in real Chromium, and the fixture site
 * tells what really happened. Proven: the chosen call runs as the caller's own (a read tab blocks the click's
 * write, approvals hold), a repeat on the same page structure is a cache hit with no provider request and the
 * same effect, a %vault:site.field% placeholder is filled from the vault while no provider request, result or
 * audit entry holds the value, another user's tab is not_found, bad input costs no provider request, a
 * validate quote that is not on the page is no pass, hidden text is never sent.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { pageEval } from '../fixtures/page-eval.js';
import { html } from '../fixtures/site.js';
import { startFakeModels, type FakeModels, type RecordedRequest, type ScriptedTurn } from '../fixtures/fake-models.js';

const USER_KEY = 'sk-act-caller-key-5d0c81f2';
const PASSWORD = 'plum-Tangerine-7741-vault';
const HIDDEN = 'HIDDEN-SENTENCE-NEVER-SENT';
const API_KEY = 'ak-live-93jd72hf61ks0';

let s: Stack;
let fake: FakeModels;
let bob: string;
let carol: string;
/** How the fake answers the next requests: from what it was sent. */
let answer: ((req: RecordedRequest) => ScriptedTurn | undefined) | undefined;
const answers: string[] = [];

const FORM = html(`<h1>Account</h1>
  <form onsubmit="event.preventDefault()">
    <label>Email <input id="email" name="email"></label>
    <label>Password <input id="pw" type="password" name="password"></label>
    <label>API key <input id="apikey" name="apikey"></label>
    <button type="button" onclick="fetch('/saved',{method:'POST',body:document.getElementById('email').value+'|'+document.getElementById('pw').value}).then(()=>{document.getElementById('done').hidden=false})">Save</button>
  </form>
  <p id="done" hidden>Saved.</p>
  <p>Status: all changes were saved on Tuesday.</p>
  <p style="display:none">${HIDDEN}</p>`, '', 'Account');

/** What the model was sent in user messages (the action and the fenced snapshot or page). */
function userText(req: RecordedRequest): string {
  return ((req.body?.messages ?? []) as any[]).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}
const refIn = (text: string, re: RegExp) => re.exec(text)?.[1];
const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, args }] });

const url = (path: string) => `http://act.test:${s.site.port}${path}`;
const api = async (method: string, path: string, body?: unknown, token = s.token) => {
  const r = await s.d.rest(token, method, path, body, { 'X-Model-Key': USER_KEY });
  answers.push(JSON.stringify(r.json));
  return r;
};
const open = async (path: string, mode: 'read' | 'act', token = s.token) => {
  const r = await s.d.rest(token, 'POST', '/v1/tabs', { url: url(path), mode });
  if (r.status !== 201) throw new Error(JSON.stringify(r.json));
  return r.json.tab as string;
};
const act = (tab: string, body: Record<string, unknown>, token = s.token) => api('POST', `/v1/tabs/${tab}/act`, body, token);
const savedPosts = () => s.site.requests.filter((r) => r.method === 'POST' && r.path === '/saved');

t.before(async () => {
  fake = await startFakeModels();
  fake.fallback = (req) => answer?.(req);
  s = await startStack({ models: fake.config });
  bob = await s.d.addUser('bob');
  carol = await s.d.addUser('carol');
  await s.d.daemon.env.users.update('carol', { approvals: true });
  await s.d.daemon.env.vault.setFields('alice', 'act.test', { fields: { password: PASSWORD, api_key: API_KEY } });
  s.site.route('/form', FORM);
  s.site.route('/saved', (_req, res) => {
    res.writeHead(204);
    res.end();
  });
  s.site.route('/pay', html(`<h1>Checkout</h1><form method="post" action="/charge">
    <label>Card number <input name="cardnumber" autocomplete="cc-number"></label>
    <button type="submit">Pay now</button></form>`));
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

/** The model clicks the button named in the action, by the ref it reads in the snapshot it was sent. */
const clickButton = (name: string) => (req: RecordedRequest) => {
  const ref = refIn(userText(req), new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`));
  return ref ? call('browser_click', { ref }) : { text: `no button ${name}` };
};

t.test('act: the model picks one click on the snapshot; it runs in the page; a repeat on a fresh load is a cache hit with no model request', async (t) => {
  const tab = await open('/form', 'act');
  answer = clickButton('Save');
  const before = fake.requests.length;
  const r = await act(tab, { action: 'click the Save button' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.cached, false);
  t.equal(r.json.steps[0].tool, 'browser_click');
  t.same(r.json.steps[0].element, { role: 'button', name: 'Save', nth: 0 });
  t.equal(fake.requests.length, before + 1, 'one provider request');
  const sent = fake.requests.at(-1)!;
  t.equal(sent.headers.authorization, `Bearer ${USER_KEY}`, "the caller's key, in OpenAI's header");
  t.match(userText(sent), /Action: click the Save button/);
  t.match(userText(sent), /<<<page [0-9a-f]+ snapshot of t\d+>>>/, 'the snapshot reaches the model fenced');
  t.notMatch(sent.bodyText, HIDDEN, 'hidden text is not in the snapshot sent');
  const toolNames = (sent.body.tools as any[]).map((x) => x.function.name);
  t.ok(toolNames.includes('browser_fill_secret') && toolNames.includes('browser_click'));
  t.notOk(JSON.stringify(sent.body.tools).includes('"tab"'), 'the model is not asked for the tab: the route gives it');
  t.equal(r.json.usage.inputTokens, Math.round(sent.bodyText.length / 4), 'usage is what the provider reported');
  await s.site.waitFor((q) => q.method === 'POST' && q.path === '/saved');
  t.equal(savedPosts().length, 1, 'the click happened in the page');

  // A fresh load of the page: new refs, same structure.
  await s.rest('browser_navigate', { tab, url: url('/form') });
  answer = () => ({ text: 'the cache should have answered' });
  const again = await act(tab, { action: 'click the Save button' });
  t.equal(again.status, 200, JSON.stringify(again.json));
  t.equal(again.json.cached, true, 'a cache hit');
  t.equal(fake.requests.length, before + 1, 'no provider request');
  t.same(again.json.usage, { turns: 0, inputTokens: 0, outputTokens: 0 });
  t.same(again.json.steps[0].element, { role: 'button', name: 'Save', nth: 0 });
  await s.site.waitFor(() => savedPosts().length === 2);
  t.equal(savedPosts().length, 2, 'the same effect: the page posted again');

  const audit = (await api('GET', '/v1/audit?limit=10')).json.entries;
  t.ok(audit.some((e: any) => e.tool === 'tab_act' && e.via === 'rest' && e.outcome === 'ok'), 'the operation is audited');
  t.ok(audit.some((e: any) => e.tool === 'browser_click' && e.via === 'rest' && e.tab === tab), "the click is audited as the caller's own, by the caller's door");

  // cache: false asks the model again, even on a remembered page.
  answer = clickButton('Save');
  const fresh = await act(tab, { action: 'click the Save button', cache: false });
  t.equal(fresh.json.cached, false);
  t.equal(fake.requests.length, before + 2);
});

t.test('act fills a %vault:site.field% placeholder with browser_fill_secret; no provider request holds the value; a repeat is a cache hit', async (t) => {
  const tab = await open('/form', 'act');
  answer = (req) => {
    const text = userText(req);
    const ref = refIn(text, /textbox "Password" \[ref=(e\d+)\]/);
    // The placeholder reached the model as written: it passes it on, as told.
    return ref && text.includes('%vault:act.test.password%') ? call('browser_fill', { ref, value: '%vault:act.test.password%' }) : { text: 'no field' };
  };
  const before = fake.requests.length;
  const r = await act(tab, { action: 'put %vault:act.test.password% into the Password field' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.steps[0].tool, 'browser_fill_secret', 'dispatched as a secret fill');
  t.same({ site: r.json.steps[0].args.site, field: r.json.steps[0].args.field }, { site: 'act.test', field: 'password' });
  t.equal(fake.requests.length, before + 1);
  await s.rest('browser_fill', { tab, ref: /textbox "Email" \[ref=(e\d+)\]/.exec((await s.rest('browser_snapshot', { tab })).json.text)![1], value: 'first' });
  await s.rest('browser_click', { tab, ref: /button "Save" \[ref=(e\d+)\]/.exec((await s.rest('browser_snapshot', { tab })).json.text)![1] });
  const posted = await s.site.waitFor((q) => q.path === '/saved' && q.body.startsWith('first|'));
  t.equal(posted.body, `first|${PASSWORD}`, 'the vault value is in the field');

  await s.rest('browser_navigate', { tab, url: url('/form') });
  const again = await act(tab, { action: 'put %vault:act.test.password% into the Password field' });
  t.equal(again.json.cached, true, 'a repeat is a cache hit');
  t.equal(again.json.steps[0].tool, 'browser_fill_secret');
  t.equal(fake.requests.length, before + 1, 'no provider request');
  await s.rest('browser_fill', { tab, ref: /textbox "Email" \[ref=(e\d+)\]/.exec((await s.rest('browser_snapshot', { tab })).json.text)![1], value: 'second' });
  await s.rest('browser_click', { tab, ref: /button "Save" \[ref=(e\d+)\]/.exec((await s.rest('browser_snapshot', { tab })).json.text)![1] });
  t.equal((await s.site.waitFor((q) => q.path === '/saved' && q.body.startsWith('second|'))).body, `second|${PASSWORD}`, 'the replay filled it too');

  t.notOk(fake.requests.some((q) => q.bodyText.includes(PASSWORD)), 'no provider request holds the value');
  const audit = JSON.stringify((await api('GET', '/v1/audit?limit=50')).json);
  t.notOk(audit.includes(PASSWORD), 'no audit entry holds it');
  t.ok(answers.every((a) => !a.includes(PASSWORD)), 'no answer holds it');
});

t.test('a vault value filled into a plain text field never reaches the model in a later snapshot or page text', async (t) => {
  const tab = await open('/form', 'act');
  answer = (req) => {
    const ref = refIn(userText(req), /textbox "API key" \[ref=(e\d+)\]/);
    return ref ? call('browser_type', { ref, text: '%vault:act.test.api_key%' }) : { text: 'no field' };
  };
  const r = await act(tab, { action: 'enter %vault:act.test.api_key% as the API key' });
  t.equal(r.json.steps?.[0]?.tool, 'browser_fill_secret', JSON.stringify(r.json));
  // Read from the test's side: no script of the agent's runs in a page that holds a vault value.
  t.equal(await pageEval(s.d, 'alice', tab, "document.getElementById('apikey').value.length"), API_KEY.length, 'the field holds the value');
  const before = fake.requests.length;
  answer = () => call('propose_actions', { candidates: [] });
  t.equal((await api('POST', `/v1/tabs/${tab}/observe`, { instruction: 'save' })).status, 200);
  answer = () => call('judge_assertion', { pass: false, quote: '', reason: 'no' });
  t.equal((await api('POST', `/v1/tabs/${tab}/validate`, { assertion: 'the key is set', includeHidden: true })).status, 200);
  answer = clickButton('Save');
  t.equal((await act(tab, { action: 'press Save now' })).status, 200);
  const sent = fake.requests.slice(before);
  t.equal(sent.length, 3);
  t.ok(sent.every((q) => !q.bodyText.includes(API_KEY)), 'no later provider request holds the value');
  t.ok(sent[0]!.bodyText.includes('API key'), 'though the field itself is shown');
});

t.test('a placeholder used as part of a longer value is refused to the model, which gets one repair turn', async (t) => {
  const tab = await open('/form', 'act');
  let n = 0;
  answer = (req) => {
    n++;
    const ref = refIn(userText(req), /textbox "Email" \[ref=(e\d+)\]/)!;
    return call('browser_fill', { ref, value: `x%vault:act.test.password%y` });
  };
  const before = fake.requests.length;
  const r = await act(tab, { action: 'type x%vault:act.test.password%y into Email' });
  t.equal(r.json.error?.code, 'action_failed', JSON.stringify(r.json));
  t.equal(n, 2, 'one repair turn, then it gives up');
  t.match(JSON.stringify(fake.requests.at(-1)!.body.messages), /placeholder must be the whole value/);
  t.equal(fake.requests.length, before + 2);
  t.equal(await pageEval(s.d, 'alice', tab, "document.getElementById('email').value.length"), 0, 'nothing was filled');
});

t.test("a read tab refuses the click's write, as for the tool itself", async (t) => {
  const tab = await open('/form', 'read');
  answer = clickButton('Save');
  const posts = savedPosts().length;
  const r = await act(tab, { action: 'press Save in the read tab' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.steps[0].tool, 'browser_click');
  t.ok(r.json.blocked?.some((b: any) => b.method === 'POST' && /\/saved$/.test(b.url)), 'the POST is reported blocked');
  t.match(r.json.text, /Blocked in t\d+/);
  t.equal(savedPosts().length, posts, 'the site saw no write');

  // A cached step replays under the same rule: the act tab's cached "click the Save button" posts nothing here.
  const before = fake.requests.length;
  const cached = await act(tab, { action: 'click the Save button' });
  t.equal(cached.json.cached, true);
  t.equal(fake.requests.length, before);
  t.ok(cached.json.blocked?.length, 'blocked again');
  t.equal(savedPosts().length, posts);
});

t.test('approvals on: a sensitive click comes back needsApproval as it is, nothing is sent, nothing is cached', async (t) => {
  const tab = await open('/pay', 'act', carol);
  answer = clickButton('Pay now');
  const before = fake.requests.length;
  const r = await act(tab, { action: 'pay' }, carol);
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.needsApproval?.classes?.[0], 'payment');
  t.notOk(s.site.requests.some((q) => q.path === '/charge'), 'nothing was charged');
  const again = await act(tab, { action: 'pay' }, carol);
  t.equal(again.json.cached, false, 'a step that did not run is not remembered');
  t.equal(fake.requests.length, before + 2);
});

t.test("another user's tab is not_found, and nothing is sent to a provider", async (t) => {
  const tab = await open('/form', 'act');
  const before = fake.requests.length;
  for (const op of ['act', 'observe', 'validate']) {
    const body = op === 'act' ? { action: 'click the Save button' } : op === 'observe' ? { instruction: 'save' } : { assertion: 'saved' };
    const r = await api('POST', `/v1/tabs/${tab}/${op}`, body, bob);
    t.equal(r.status, 404, `${op}: ${JSON.stringify(r.json)}`);
    t.equal(r.json.error.code, 'not_found');
  }
  t.equal(fake.requests.length, before);
});

t.test('bad input is a validation_error and costs no provider request', async (t) => {
  const tab = await open('/form', 'act');
  const before = fake.requests.length;
  const bad: [string, unknown][] = [
    ['act', {}],
    ['act', { action: '' }],
    ['act', { action: 'x'.repeat(2001) }],
    ['act', { action: 'click', model: 'nope/model' }],
    ['act', { action: 'click', model: 'openai/not-a-listed-model' }],
    ['act', { action: 'click', maxTokensTotal: 0 }],
    ['act', { action: 'click', unknown: 1 }],
    ['act', ['not', 'an', 'object']],
    ['observe', { instruction: 42 }],
    ['validate', { assertion: 'x', maxTokensTotal: 2_000_001 }],
  ];
  for (const [op, body] of bad) {
    const r = await api('POST', `/v1/tabs/${tab}/${op}`, body);
    t.equal(r.json.error?.code, 'validation_error', `${op} ${JSON.stringify(body).slice(0, 60)}: ${JSON.stringify(r.json).slice(0, 300)}`);
  }
  const badTab = await api('POST', '/v1/tabs/x1/act', { action: 'click' });
  t.equal(badTab.json.error?.code, 'validation_error', 'a tab id that is not one');
  t.equal(fake.requests.length, before, 'no provider request');
});

t.test('observe: candidates on refs of the snapshot; a made-up ref is dropped and named; nothing runs', async (t) => {
  const tab = await open('/form', 'act');
  answer = (req) => {
    const text = userText(req);
    const save = refIn(text, /button "Save" \[ref=(e\d+)\]/);
    const email = refIn(text, /textbox "Email" \[ref=(e\d+)\]/);
    return call('propose_actions', {
      candidates: [
        { description: 'Type the address into Email', ref: email, tool: 'browser_type', args: { text: 'a@b.test' } },
        { description: 'Click Save', ref: save, tool: 'browser_click', args: {} },
        { description: 'Click a button that is not there', ref: 'e999', tool: 'browser_click', args: {} },
        { description: 'Run a script', tool: 'browser_evaluate', args: { js: '1' } },
      ],
    });
  };
  const posts = savedPosts().length;
  const r = await api('POST', `/v1/tabs/${tab}/observe`, { instruction: 'save my e-mail address' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.candidates.map((c: any) => [c.tool, c.element?.role, c.element?.name]), [['browser_type', 'textbox', 'Email'], ['browser_click', 'button', 'Save']]);
  t.equal(r.json.warnings.length, 2, JSON.stringify(r.json.warnings));
  t.match(r.json.warnings.join('\n'), /e999 is not on the page/);
  t.match(r.json.warnings.join('\n'), /browser_evaluate" is not an interaction tool/);
  t.equal(fake.requests.at(-1)!.body.tool_choice?.function?.name, 'propose_actions', 'the answer is a forced tool call');
  t.equal(savedPosts().length, posts, 'nothing ran');
  t.equal(await pageEval(s.d, 'alice', tab, "document.getElementById('email').value.length"), 0);
});

t.test('validate: a pass needs a quote that is on the page; a made-up quote is no pass; hidden text is not sent', async (t) => {
  const tab = await open('/form', 'act');
  answer = () => call('judge_assertion', { pass: true, chunk: 'c1', quote: 'all changes were saved on Tuesday', reason: 'The status line says so.' });
  const r = await api('POST', `/v1/tabs/${tab}/validate`, { assertion: 'the changes were saved' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.pass, true);
  t.equal(r.json.quote, 'all changes were saved on Tuesday');
  t.match(r.json.citation, { quote: 'all changes were saved on Tuesday', url: url('/form') });
  t.notMatch(fake.requests.at(-1)!.bodyText, HIDDEN, 'hidden text stays out');

  answer = () => call('judge_assertion', { pass: true, chunk: 'c1', quote: 'your order has shipped', reason: 'It shipped.' });
  const made = await api('POST', `/v1/tabs/${tab}/validate`, { assertion: 'the order has shipped' });
  t.equal(made.json.pass, false, 'a quote not on the page is no pass');
  t.equal(made.json.modelPass, true);
  t.notOk(made.json.citation);
  t.match(made.json.warnings.join('\n'), /not counted as a pass/);

  answer = () => call('judge_assertion', { pass: false, quote: '', reason: 'Nothing about shipping.' });
  const fail = await api('POST', `/v1/tabs/${tab}/validate`, { assertion: 'the order has shipped' });
  t.equal(fail.json.pass, false);
  t.equal(fail.json.warnings.length, 0);
});

t.test('no caller key or vault value in any answer', async (t) => {
  t.ok(answers.length > 20);
  t.same(answers.filter((a) => a.includes(USER_KEY) || a.includes(PASSWORD)), [], 'no answer holds the key or the value');
  const audit = JSON.stringify((await s.d.rest(s.token, 'GET', '/v1/audit?limit=200')).json);
  t.notOk(audit.includes(USER_KEY));
});
