/**
 * Saved sessions in every kind of browser context, over and over: save and load on the default profile, in a
 * named context, in a context made a moment before, in a context closed and made again under the same name,
 * many times in a row with tabs opened and closed and contexts ended in between. Each save or load must
 * answer (never internal_error) and the loaded state must reach the server.
 */
import t from 'tap';
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';

const SID = `sid-${randomBytes(12).toString('hex')}`;
let d: TestDaemon;
let site: FixtureSite;
let alice: Client;

const tabOf = (text: string) => /\bOpened tab ((?:[a-z0-9_-]+\/)?t\d+)/.exec(text)![1];
const errorCode = (text: string) => /^Error \[([a-z_]+)\]/m.exec(text)?.[1];

async function ok(name: string, args: Record<string, unknown> = {}) {
  const r = await call(alice, name, args);
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.text}`);
  return r.text;
}
async function open(args: Record<string, unknown>) {
  return tabOf(await ok('browser_open', { live: 'none', ...args }));
}
const signedIn = async (tab: string) => /Signed in/.test(await ok('browser_evaluate', { tab, js: 'document.body.innerText' }));

t.before(async () => {
  site = await startSite();
  site.route('/login', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': [`sid=${SID}; Path=/; HttpOnly`] });
    res.end(html('<h1>Welcome</h1><script>localStorage.setItem("k", "v")</script>'));
  });
  site.route('/account', (req, res) => {
    const ok = (req.headers.cookie ?? '').split(/;\s*/).includes(`sid=${SID}`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html(`<h1>${ok ? 'Signed in' : 'Signed out'}</h1>`));
  });
  d = await startTestDaemon();
  alice = await d.mcp(await d.addUser('alice'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('save and load on the default profile', async (t) => {
  const tab = await open({ url: `${site.url}/login`, mode: 'act' });
  const r = await call(alice, 'browser_session_save', { name: 'a', tab });
  t.notOk(r.isError, r.text);
  const again = await call(alice, 'browser_session_load', { name: 'a', tab });
  t.notOk(again.isError, again.text);
  await ok('browser_close_tab', { tab });
});

t.test('save in a named context made a moment before, load into another made a moment before', async (t) => {
  const src = await open({ url: `${site.url}/login`, context: 'made-now' });
  const r = await call(alice, 'browser_session_save', { name: 'a', tab: src });
  t.notOk(r.isError, r.text);
  const dst = await open({ url: `${site.url}/account`, context: 'also-now' });
  t.equal(await signedIn(dst), false);
  const l = await call(alice, 'browser_session_load', { name: 'a', tab: dst });
  t.notOk(l.isError, l.text);
  t.equal(await signedIn(dst), true, 'the new context is signed in');
});

t.test('a context closed and made again under the same name: save and load still reach it', async (t) => {
  await open({ url: `${site.url}/login`, context: 'again' });
  await ok('browser_contexts', { action: 'close', name: 'again' });
  const tab = await open({ url: `${site.url}/account`, context: 'again' });
  t.equal(await signedIn(tab), false, 'the new context starts empty');
  const l = await call(alice, 'browser_session_load', { name: 'a', tab });
  t.notOk(l.isError, l.text);
  t.equal(await signedIn(tab), true);
  const s = await call(alice, 'browser_session_save', { name: 'b', tab });
  t.notOk(s.isError, s.text);
});

t.test('many saves and loads in a row, with tabs opened and closed and contexts ended between', async (t) => {
  const failures: string[] = [];
  const attempt = async (name: string, args: Record<string, unknown>) => {
    const r = await call(alice, name, args);
    if (r.isError) failures.push(`${name} ${JSON.stringify(args)}: ${errorCode(r.text)} ${r.text.slice(0, 200)}`);
  };
  const base = await open({ url: `${site.url}/login`, mode: 'act' });
  for (let i = 0; i < 3; i++) {
    const ctxName = `loop${i % 3}`;
    const inCtx = await open({ url: `${site.url}/login`, context: ctxName });
    await attempt('browser_session_save', { name: 'a', tab: inCtx });
    await attempt('browser_session_save', { name: 'a', tab: base });
    const fresh = await open({ url: `${site.url}/account`, context: `fresh${i}` });
    await attempt('browser_session_load', { name: 'a', tab: fresh });
    if (!(await signedIn(fresh))) failures.push(`round ${i}: fresh${i} not signed in after load`);
    await attempt('browser_session_load', { name: 'a', tab: base });
    await ok('browser_close_tab', { tab: fresh });
    if (i % 2) await ok('browser_contexts', { action: 'close', name: ctxName });
    else await ok('browser_close_tab', { tab: inCtx });
    await ok('browser_contexts', { action: 'close', name: `fresh${i}` });
    // The default profile with a tab opened and closed around it.
    const extra = await open({ url: `${site.url}/account` });
    await attempt('browser_session_load', { name: 'a', tab: extra });
    await ok('browser_close_tab', { tab: extra });
    await attempt('browser_session_save', { name: 'a', tab: base });
  }
  t.same(failures, [], 'every save and load answered');
});

t.test('a context closed while a save or load of its tab runs: the call answers, never internal_error', async (t) => {
  const answers: string[] = [];
  for (let i = 0; i < 4; i++) {
    const tab = await open({ url: `${site.url}/login`, context: `race${i}` });
    const name = i % 2 ? 'browser_session_load' : 'browser_session_save';
    const [r] = await Promise.all([call(alice, name, { name: 'a', tab }), call(alice, 'browser_contexts', { action: 'close', name: `race${i}` })]);
    answers.push(r.isError ? (errorCode(r.text) ?? r.text) : 'ok');
    t.not(errorCode(r.text), 'internal_error', `${name} round ${i}: ${r.text.slice(0, 300)}`);
  }
  t.comment(`answers: ${answers.join(', ')}`);
});
