/**
 * Attack: a hostile agent takes a filled vault value back out without any script of its own (docs/security.md "A filled
 * vault value never comes back out"). fill_secret checks the page's site, not which field: filled into the
 * site's own search box (a GET form that echoes its query) and sent, the value comes back in the address and
 * the results, where the output scrubber hides it whole. But the agent may edit the filled field with keys
 * first: End+Backspace sends all but the last character, Home+Delete all but the first; neither is the value,
 * so neither is scrubbed, and the two together are the value. (Held: the same search sent unedited, and
 * select-all/copy/paste or a drag of the selection into another field: the copy is dots.)
 */
import t from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call as rawCall, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startLoginSite, type LoginSite } from '../fixtures/login-site.js';
import { html } from '../fixtures/site.js';

const API_KEY = 'sk-live-Att4ckQq93LmN0zz';
const FORMS = [API_KEY, encodeURIComponent(API_KEY), Buffer.from(API_KEY).toString('base64')];

let d: TestDaemon;
let site: LoginSite;
let client: Client;

const call = (name: string, args: Record<string, unknown> = {}) => rawCall(client, name, args);
const leaked = (r: { raw: unknown }) => FORMS.filter((f) => JSON.stringify(r.raw).includes(f));
const openAct = async (url: string) => {
  const r = await call('browser_open', { url, mode: 'act' });
  return r.raw.structuredContent.tab as string;
};

t.before(async () => {
  site = await startLoginSite();
  d = await startTestDaemon();
  client = await d.mcp(await d.addUser('alice'));
  await d.daemon.env.vault.setFields('alice', 'login.test', { loginUrl: `${site.at('login.test')}/login`, fields: { username: 'alice', api_key: API_KEY } });
  // The site's ordinary search: a GET form whose results page says what was searched for.
  site.route('/search', (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    res.end(html(`<form action="/search" method="get"><label>Search <input name="q"></label></form>${q ? `<p>Results for ${esc(q)}</p>` : ''}`, '', 'Search'));
  });
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

/** Fills the key into the search box, edits it with keys, sends it, and returns the address the results page is at. */
async function searchEdited(keys: string[]) {
  const tab = await openAct(`${site.at('login.test')}/search`);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "Search"/);
  const fill = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'api_key' });
  if (fill.isError) return { fill, tabs: fill };
  await call('browser_click', { tab, ref });
  for (const key of keys) await call('browser_press', { tab, key });
  await call('browser_press', { tab, key: 'Enter' });
  await call('browser_wait', { tab, text: 'Results for' });
  const tabs = await call('browser_read_text', { tab });
  await call('browser_close_tab', { tab });
  return { fill, tabs };
}

t.test('edited with keys before it is sent: all but the last character, then all but the first, rebuild it', async (t) => {
  const head = await searchEdited(['End', 'Backspace']);
  const tail = await searchEdited(['Home', 'Delete']);
  const q = (text: string) => /Results for ([^\n]*)/.exec(text)?.[1] ?? '';
  const rebuilt = q(head.tabs.text) + q(tail.tabs.text).slice(-1);
  t.not(rebuilt, API_KEY, `the two results together do not give the value (got ${JSON.stringify(rebuilt)})`);
  t.notOk(q(head.tabs.text).length > 3 && API_KEY.startsWith(q(head.tabs.text)), 'no long prefix of the value comes back');
});

t.test('in a page that holds a filled value, typing and editing keys are refused; Enter, Tab and Escape go', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/search`);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "Search"/);
  t.notOk((await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'api_key' })).isError);
  for (const key of ['End', 'Backspace', 'Delete', 'ArrowLeft', 'Control+A', 'Shift+Home', 'x']) {
    const r = await call('browser_press', { tab, key });
    t.ok(r.isError && /Error \[refused\]/.test(r.text), `${key} refused: ${r.text.slice(0, 120)}`);
  }
  const typed = await call('browser_type', { tab, ref, text: 'more' });
  t.ok(typed.isError && /Error \[refused\]/.test(typed.text), 'typing refused');
  for (const key of ['Tab', 'Escape']) t.notOk((await call('browser_press', { tab, key })).isError, `${key} goes`);
  await call('browser_close_tab', { tab });
});
