/** browser_open, browser_navigate and browser_read judge an address the same way, with the same code. */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: string;
const tool = (name: string, args: Record<string, unknown>) => d.rest(alice, 'POST', `/v1/tools/${name}`, args);

t.before(async () => {
  site = await startSite();
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  site.route('/here', html('<h1>here</h1>'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('the same bad address gets the same error code from open, navigate and read', async (t) => {
  const tab = (await tool('browser_open', { url: `${site.url}/here` })).json.tab;
  const cases: [string, string][] = [
    ['file:///etc/passwd', 'blocked'],
    ['javascript:alert(1)', 'blocked'],
    ['data:text/html,<h1>x</h1>', 'blocked'],
    ['chrome://settings', 'blocked'],
    ['http://0.0.0.0/', 'blocked'],
    ['pizza', 'validation_error'],
    ['hello world', 'validation_error'],
  ];
  for (const [url, code] of cases) {
    const open = await tool('browser_open', { url });
    const nav = await tool('browser_navigate', { tab, url });
    const read = await tool('browser_read', { urls: [url] });
    t.same([open.json.error?.code, nav.json.error?.code, read.json.error?.code], [code, code, code], url);
    t.ok(open.json.error?.next && nav.json.error?.next && read.json.error?.next, `${url}: each says what to do next`);
  }
  const tabs = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs;
  t.equal(tabs.length, 1, 'no refused address left a tab behind');
  t.equal(tabs[0].url, `${site.url}/here`, 'and the tab stayed where it was');
});
