/**
 * Popups become tabs of their own: target=_blank links and forms, window.open, with or without noopener. They
 * take their opener's mode and allowedDomains, load (a noopener popup used to stay paused for good), and show up
 * in browser_tabs with their opener.
 */
import t from 'tap';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let stack: Stack;
let other: string;

t.before(async () => {
  stack = await startStack();
  const site = stack.site;
  other = `http://elsewhere.test:${site.port}`;
  site.route('/opener', html(`
    <a href="/landing?via=link" target="_blank">Blank link</a>
    <a href="/landing?via=noopener" target="_blank" rel="noopener">Noopener link</a>
    <form action="/landing" target="_blank"><input type="hidden" name="via" value="form"><button>Blank form</button></form>
    <button onclick="window.open('/landing?via=open')">Window open</button>
    <button onclick="window.open('/landing?via=open-noopener', '_blank', 'noopener')">Window open noopener</button>
    <button onclick="window.open('${other}/landing?via=elsewhere')">Open elsewhere</button>`, '', 'Opener'));
  site.route('/landing', html('<h1>Landed</h1><script>document.title = "Landed " + new URLSearchParams(location.search).get("via")</script>', '', 'Landed'));
});
t.teardown(() => stack.stop());

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1];

async function tabs() {
  return (await stack.rest('browser_tabs')).json.tabs as { id: string; url: string; mode: string; opener?: string; allowedDomains?: string[] }[];
}

/**
 * Clicks a button or link in the opener and returns the tab it opened. Waits on the landing page's request: the
 * popup ran, and a popup is listed before it is let run.
 */
async function popupFrom(opener: string, name: RegExp, via: string) {
  const known = new Set((await tabs()).map((x) => x.id));
  const landed = stack.site.waitFor((r) => r.path.startsWith('/landing') && new URL(r.path, 'http://x').searchParams.get('via') === via);
  const snap = (await call(stack.client, 'browser_snapshot', { tab: opener })).text;
  const click = await call(stack.client, 'browser_click', { tab: opener, ref: refOf(snap, name) });
  if (click.isError) throw new Error(click.text);
  await landed;
  return (await tabs()).find((x) => !known.has(x.id));
}

t.test('every kind of popup from an act tab becomes a tab of its own, in act mode, and loads', async (t) => {
  const opener = tabId((await call(stack.client, 'browser_open', { url: `${stack.site.url}/opener`, mode: 'act' })).text);
  const kinds: [RegExp, string][] = [
    [/link "Blank link"/, 'link'],
    [/link "Noopener link"/, 'noopener'],
    [/button "Blank form"/, 'form'],
    [/button "Window open"/, 'open'],
    [/button "Window open noopener"/, 'open-noopener'],
  ];
  for (const [name, via] of kinds) {
    const popup = await popupFrom(opener, name, via);
    t.equal(popup?.opener, opener, `${via}: a tab with its opener is listed`);
    if (!popup) continue;
    t.equal(popup.mode, 'act', `${via}: the popup has its opener's mode`);
    const text = await call(stack.client, 'browser_read_text', { tab: popup.id });
    t.match(text.text, /Landed/, `${via}: the popup can be read by its id`);
  }
  // No popup is left behind as a target that is nobody's tab (a noopener popup used to stay paused for good).
  const inst = stack.d.daemon.env.pool.peek('alice')!;
  const { targetInfos } = await inst.conn!.send('Target.getTargets', {});
  const tabTargets = new Set([...inst.tabs.values()].map((x) => x.targetId));
  const strays = targetInfos.filter((x) => x.type === 'page' && x.openerId && !tabTargets.has(x.targetId));
  t.same(strays, [], 'every popup target is a tab');
});

t.test("a read tab's popup is a read tab; allowedDomains hold in popups", async (t) => {
  const opener = tabId((await call(stack.client, 'browser_open', { url: `${stack.site.url}/opener`, allowedDomains: ['127.0.0.1'] })).text);
  const popup = await popupFrom(opener, /button "Window open"/, 'open');
  t.equal(popup?.opener, opener);
  t.equal(popup?.mode, 'read');
  t.same(popup?.allowedDomains, ['127.0.0.1']);
  const before = stack.site.requests.length;
  const known = new Set((await tabs()).map((x) => x.id));
  const snap = (await call(stack.client, 'browser_snapshot', { tab: opener })).text;
  const r = await call(stack.client, 'browser_click', { tab: opener, ref: refOf(snap, /button "Open elsewhere"/) });
  t.notOk(r.isError, r.text);
  // Popups attach in the order they open: once a later one has landed, the blocked one is listed.
  const later = await popupFrom(opener, /button "Window open"/, 'open');
  const blocked = (await tabs()).find((x) => !known.has(x.id) && x.id !== later?.id);
  t.ok(blocked, 'the popup outside allowedDomains is a tab too');
  t.equal(blocked?.opener, opener);
  const log = await call(stack.client, 'browser_log', { tab: blocked!.id });
  t.match(log.text, /navigation_blocked.*elsewhere\.test.*outside allowedDomains/s, "the popup's log says why it did not load");
  t.notOk(stack.site.requests.slice(before).some((q) => q.path.includes('via=elsewhere')), 'it never loaded');
});
