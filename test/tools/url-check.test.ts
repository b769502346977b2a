/** browser_open, browser_navigate and browser_read judge an address the same way, with the same code. */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, type FixtureSite } from '../fixtures/site.js';
import type { TestDaemon } from '../fixtures/daemon.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let alice: string;
const tool = (name: string, args: Record<string, unknown>) => stack.rest(name, args);

t.before(async () => {
  stack = await startStack();
  ({ d, site, token: alice } = stack);
  site.route('/here', html('<h1>here</h1>'));
});
t.teardown(() => stack.stop());

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
