/**
 * browser_read's scrollUntil against real Chromium: an endless list, a virtual list that reuses its nodes, and
 * a tall page. Every promise is tried: every row once and in order (equal texts kept apart), each reason to
 * stop said, item-less scrolling reads what loaded, and bad input changes nothing.
 */
import t from 'tap';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { type FixtureSite } from '../fixtures/site.js';
import { endlessList, stuckPage, virtualList } from '../fixtures/list-pages.js';

let stack: Stack;
let site: FixtureSite;
const REPEATED = [100, 101, 102, 250];

t.before(async () => {
  stack = await startStack();
  site = stack.site;
  site.route('/endless', endlessList(100));
  site.route('/forever', endlessList(100000));
  site.route('/virtual', virtualList(500, REPEATED));
  site.route('/stuck', stuckPage());
});
t.teardown(() => stack.stop());

const open = async (path: string) => (await stack.rest('browser_open', { url: `${site.url}${path}` })).json.tab as string;
/** A number the page answers (browser_evaluate's fenced result). */
const evalNumber = async (tab: string, js: string) => {
  const text: string = (await stack.rest('browser_evaluate', { tab, js })).json.text;
  return Number(/>>>\n([^\n]*)\n<<<end [0-9a-f]{12}>>>/.exec(text)?.[1]);
};
const rowText = (r: number) => (REPEATED.includes(r) ? 'Repeated row' : `Row ${r}`);

t.test('a virtual list: every one of its 500 rows kept once and in order, equal texts apart', async (t) => {
  const tab = await open('/virtual');
  const r = await stack.rest('browser_read', { tab, scrollUntil: { item: '.row', container: '#box', maxScrolls: 500, noNewForMs: 800 } });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 500));
  const s = r.json.pages[0].scroll;
  t.same(s.items, Array.from({ length: 500 }, (_, i) => rowText(i)), 'rows 0-499 in order, each once');
  t.equal(s.stoppedBecause, 'end');
  t.ok(s.scrolls > 10, `it scrolled (${s.scrolls} turns)`);
  t.ok((await evalNumber(tab, 'document.getElementById("box").scrollTop')) > 10000, 'the box really scrolled');
});

t.test('a url read (scratch tab) scrolls as well', async (t) => {
  const r = await stack.rest('browser_read', { urls: [`${site.url}/virtual`], scrollUntil: { item: '.row', container: '#box', count: 60, maxScrolls: 500 } });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 500));
  const s = r.json.pages[0].scroll;
  t.same(s.items, Array.from({ length: 60 }, (_, i) => rowText(i)));
  t.equal(s.stoppedBecause, 'count');
});

t.test('count: stops once enough items are held, and answers exactly that many', async (t) => {
  const tab = await open('/forever');
  const r = await stack.rest('browser_read', { tab, scrollUntil: { item: 'li.it', count: 50 } });
  const s = r.json.pages[0].scroll;
  t.equal(s.stoppedBecause, 'count');
  t.same(s.items, Array.from({ length: 50 }, (_, i) => `Item ${i + 1}`));
  const c = await call(stack.client, 'browser_read', { tab, scrollUntil: { item: 'li.it', count: 5 } });
  t.match(c.text, /stopped because it held the items asked for \(count\); 5 item\(s\) kept in order/);
  t.match(c.text, /<<<page \w+ source="items of page 1[^"]*">>>\n1\. Item 1\n2\. Item 2/, 'the items are fenced page text');
});

t.test('max_scrolls: an endless list stops at the wheel budget', async (t) => {
  const tab = await open('/forever');
  const r = await stack.rest('browser_read', { tab, scrollUntil: { item: 'li.it', maxScrolls: 3 } });
  const s = r.json.pages[0].scroll;
  t.equal(s.stoppedBecause, 'max_scrolls');
  t.equal(s.scrolls, 3);
  t.ok(s.items.length > 20 && s.items.length < 200, `more than the first page, not the whole list (${s.items.length})`);
  t.same(s.items, Array.from({ length: s.items.length }, (_, i) => `Item ${i + 1}`));
});

t.test('end: a list that stops growing is read whole; without item the page is read after it loaded', async (t) => {
  const tab = await open('/endless');
  const r = await stack.rest('browser_read', { tab, scrollUntil: { item: 'li.it', noNewForMs: 600 } });
  const s = r.json.pages[0].scroll;
  t.equal(s.stoppedBecause, 'end');
  t.same(s.items, Array.from({ length: 100 }, (_, i) => `Item ${i + 1}`));
  const tab2 = await open('/endless');
  const plain = await stack.rest('browser_read', { tab: tab2, scrollUntil: { noNewForMs: 600 } });
  const p = plain.json.pages[0];
  t.equal(p.scroll.stoppedBecause, 'end');
  t.same(p.scroll.items, []);
  t.match(p.markdown, /Item 100\b/, 'the page read afterwards holds the last item loaded');
});

t.test('no_new: a page that neither grows nor moves, far from its end', async (t) => {
  const tab = await open('/stuck');
  const started = Date.now();
  const r = await stack.rest('browser_read', { tab, scrollUntil: { item: 'li.it', noNewForMs: 400, maxScrolls: 500 } });
  const s = r.json.pages[0].scroll;
  t.equal(s.stoppedBecause, 'no_new');
  t.same(s.items, ['Top 1', 'Top 2', 'Top 3', 'Top 4', 'Top 5']);
  t.ok(s.scrolls >= 1, 'it did try the wheel');
  t.ok(Date.now() - started < 10000, 'it gave up after the quiet time, not at the scroll budget');
  t.equal(await evalNumber(tab, 'scrollY'), 0, 'the page really did not move');
});

t.test('bad input is refused with a code and changes nothing', async (t) => {
  const tab = await open('/virtual');
  const cases: [Record<string, unknown>, string][] = [
    [{ count: 5 }, 'needs scrollUntil.item'],
    [{ item: 'li[' }, 'not a valid CSS selector'],
    [{ item: '.row', container: '#nope' }, 'matches nothing'],
    [{ maxScrolls: 501 }, ''],
    [{ noNewForMs: 5 }, ''],
    [{ item: '.row', bogus: 1 }, ''],
  ];
  for (const [scroll, words] of cases) {
    const r = await stack.rest('browser_read', { tab, scrollUntil: scroll });
    t.equal(r.json.error?.code, 'validation_error', JSON.stringify(scroll));
    t.ok(r.json.error?.next, 'with a next step');
    if (words) t.match(r.json.error.message, words);
  }
  t.equal(await evalNumber(tab, 'document.getElementById("box").scrollTop'), 0, 'the box was not scrolled');
});
