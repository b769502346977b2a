/** End to end: what an agent types, presses, evaluates or puts in a URL never lands in the audit log in the clear. */
import t from 'tap';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack();
  stack.site.route('/login', html('<label>Password <input type="password" id="pw"></label>'));
});
t.teardown(() => stack.stop());

t.test('evaluate, press, type and a password URL leave no secret in the audit', async (t) => {
  const { client, site } = stack;
  const base = new URL(site.url);
  const secretUrl = `http://alice:UrlPassw0rd@${base.host}/login?token=QueryTok3n&page=1`;
  const opened = await call(client, 'browser_open', { url: `${site.url}/login`, mode: 'act' });
  t.notOk(opened.isError, opened.text);
  const tab = /\b(t\d+)\b/.exec(opened.text)![1];
  const nav = await call(client, 'browser_navigate', { tab, url: secretUrl });
  t.notOk(nav.isError, nav.text);
  const snap = await call(client, 'browser_snapshot', { tab });
  const ref = refOf(snap.text, /Password/);
  const typed = await call(client, 'browser_type', { tab, ref, text: 'TypedS3cret' });
  t.notOk(typed.isError, typed.text);
  for (const key of ['Q', 'z', '7']) t.notOk((await call(client, 'browser_press', { tab, key })).isError);
  const ev = await call(client, 'browser_evaluate', { tab, js: '"EvalS3cret".length' });
  t.notOk(ev.isError, ev.text);
  t.match(ev.text, /10/);

  const audit = await stack.d.rest(stack.token, 'GET', '/v1/audit?limit=50');
  const text = JSON.stringify(audit.json.entries);
  for (const tool of ['browser_navigate', 'browser_type', 'browser_press', 'browser_evaluate']) t.match(text, tool, `${tool} is audited`);
  for (const secret of ['UrlPassw0rd', 'QueryTok3n', 'TypedS3cret', 'EvalS3cret']) t.notMatch(text, secret, `${secret} is not in the audit`);
  const presses = audit.json.entries.filter((e: any) => e.tool === 'browser_press').map((e: any) => e.args.key);
  t.equal(presses.length, 3);
  for (const k of presses) t.notOk(['Q', 'z', '7'].includes(k), `pressed key ${k} is not stored`);
  t.match(text, /page=1/, 'harmless query parameters stay for the record');
  const nav1 = audit.json.entries.find((e: any) => e.tool === 'browser_navigate');
  t.equal(nav1.tab, tab);
});
