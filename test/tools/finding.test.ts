/** find_text, query, similar, extract, read: what a person sees, exactly, and nothing hidden. */
import t from 'tap';
import { call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { html, type FixtureSite } from '../fixtures/site.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let client: Client;
let token: string;

const cards = Array.from({ length: 12 }, (_, i) => `
  <div class="card"><a href="/p/${i + 1}"><img src="/img/${i + 1}.png" alt="Product ${i + 1}" width="80" height="60"></a>
  <h3 class="title">Product ${i + 1}</h3><span class="price">$${(i + 1) * 3}.00</span><button>Add to cart</button></div>`).join('');

t.before(async () => {
  stack = await startStack();
  ({ d, site, client, token } = stack);
  site.route('/listing', html(`<h1>Shop</h1><div class="grid">${cards}</div><p style="display:none" class="card">Hidden card</p>`));
  site.route('/text', html(`
    <p id="greet"><b>Hel</b>lo wor<i>ld</i> and more</p>
    <p style="display:none">Hello world hidden</p>
    <div id="host"></div>
    <p>Order #4521 shipped; order #77 pending; ORDER #9 lost</p>
    <ul id="list"><li data-id="a">Alpha</li><li data-id="b">Beta</li><li data-id="c" style="visibility:hidden">Gamma</li></ul>
    <script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<p>hello world in shadow</p>'</script>`));
  site.route('/table', html(`
    <table id="t"><caption>Prices</caption><thead><tr><th>Item</th><th>Price</th><th>Qty</th></tr></thead>
    <tbody><tr><td>Apple</td><td>1.20</td><td>3</td></tr><tr><td>Pear | green</td><td>0.90</td><td>12</td></tr></tbody></table>
    <form action="/login" method="post"><label>User <input name="user" value="ada"></label><label>Password <input type="password" name="pw" value="hunter2"></label>
    <select name="lang"><option>en</option><option selected>de</option></select></form>
    <a href="/about">About us</a> <a href="https://127.0.0.1:1/x" rel="nofollow">Elsewhere</a>
    <div style="background-image:url(/bg.png);width:50px;height:50px"></div>`, '<meta name="description" content="A table page"><meta property="og:title" content="Table!">'));
  site.route('/article', html(`<article><h1>Descaling a kettle</h1><p>${'Intro text about kettles. '.repeat(30)}</p>
    <h2>Vinegar method</h2><p>${'Fill the kettle with vinegar and water, boil, wait an hour, rinse well. '.repeat(10)}</p>
    <h2>Citric acid</h2><p>${'Citric acid dissolves limescale quickly without smell. '.repeat(10)}</p>
    <ul><li>Step one</li><li>Step two</li></ul><p>See <a href="/more">more tips</a>.</p></article>`, '', 'Kettle'));
  for (let i = 1; i <= 50; i++) site.route(`/n/${i}`, html(`<article><h1>Page ${i}</h1><p>${`Content of page number ${i}. `.repeat(20)}</p>${i === 37 ? '<h2>Penguins</h2><p>Emperor penguins huddle in the cold Antarctic winter.</p>' : ''}</article>`, '', `Page ${i}`));
});
t.teardown(() => stack.stop());

t.test('find_text across inline elements and shadow roots, hidden left out, no match is empty', async (t) => {
  await call(client, 'browser_open', { url: `${site.url}/text` });
  const r = await call(client, 'browser_find_text', { text: 'hello world' });
  t.notOk(r.isError, r.text);
  const matches = r.raw.content ? (await d.rest(token, 'POST', '/v1/tools/browser_find_text', { text: 'hello world' })).json.matches : [];
  t.equal(matches.length, 2, 'the inline-split match and the shadow one; not the hidden one');
  t.ok(matches.every((m: any) => /^(f\d+:)?e\d+$/.test(m.ref)));
  const none = await d.rest(token, 'POST', '/v1/tools/browser_find_text', { text: 'zebra crossing' });
  t.equal(none.status, 200);
  t.same(none.json.matches, []);
});

t.test('query by css, xpath, text and regex finds what a person sees', async (t) => {
  const css = await d.rest(token, 'POST', '/v1/tools/browser_query', { css: '#list li', attr: ['data-id'] });
  t.same(css.json.matches.map((m: any) => m.text), ['Alpha', 'Beta'], 'the hidden Gamma is left out');
  t.same(css.json.matches.map((m: any) => m.attrs['data-id']), ['a', 'b']);
  const all = await d.rest(token, 'POST', '/v1/tools/browser_query', { css: '#list li', includeHidden: true });
  t.equal(all.json.total, 3);
  const xp = await d.rest(token, 'POST', '/v1/tools/browser_query', { xpath: '//li[@data-id="b"]' });
  t.same(xp.json.matches.map((m: any) => m.text), ['Beta']);
  const loc = xp.json.matches[0].locator;
  const check = await d.rest(token, 'POST', '/v1/tools/browser_evaluate', { js: `document.querySelectorAll(${JSON.stringify(loc)}).length === 1 && document.querySelector(${JSON.stringify(loc)}).textContent` });
  t.match(check.json.text, /Beta/, 'the locator selects exactly that element');
  const re = await d.rest(token, 'POST', '/v1/tools/browser_query', { regex: 'order #\\d+', flags: 'i' });
  t.equal(re.json.total, 1, 'deepest element containing the matches');
  const txt = await d.rest(token, 'POST', '/v1/tools/browser_query', { text: 'beta' });
  t.same(txt.json.matches.map((m: any) => m.tag), ['li']);
  const limited = await d.rest(token, 'POST', '/v1/tools/browser_query', { css: 'p, li', limit: 1 });
  t.equal(limited.json.matches.length, 1);
  t.equal(limited.json.more, true);
  for (const bad of [{ css: 'p', xpath: '//p' }, {}, { regex: '(' }, { css: 'p', flags: 'i' }, { css: 'p', limit: 501 }, { css: 'p', attr: Array.from({ length: 21 }, (_, i) => `a${i}`) }]) {
    const r = await d.rest(token, 'POST', '/v1/tools/browser_query', bad);
    t.equal(r.status, 400, JSON.stringify(bad).slice(0, 60));
    t.equal(r.json.error.code, 'validation_error');
  }
});

t.test('similar finds every card of a listing page with fields', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/listing` });
  const snap = (await call(client, 'browser_snapshot')).text;
  const ref = refOf(snap, /link "Product 5"/);
  const r = await d.rest(token, 'POST', '/v1/tools/browser_similar', { ref });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 300));
  t.equal(r.json.total, 12, 'all twelve cards, not the hidden one');
  t.match(JSON.stringify(r.json.items[0].fields), /Product 1/);
  t.match(JSON.stringify(r.json.items[11].fields), /\$36\.00/);
});

t.test('extract: tables cell for cell, links, meta, form with password masked, images', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/table` });
  const tables = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'tables' });
  t.same(tables.json.items[0].headers, ['Item', 'Price', 'Qty']);
  t.same(tables.json.items[0].rows, [['Apple', '1.20', '3'], ['Pear | green', '0.90', '12']]);
  const links = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'links' });
  t.ok(links.json.items.some((l: any) => l.text === 'About us' && l.href === `${site.url}/about`));
  const meta = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'meta' });
  t.ok(meta.json.items.some((m: any) => m.name === 'description' && m.content === 'A table page'));
  const form = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'form' });
  const fields = form.json.items[0].fields;
  t.equal(fields.find((f: any) => f.name === 'user').value, 'ada');
  t.not(fields.find((f: any) => f.name === 'pw').value, 'hunter2', 'password masked');
  t.notMatch(JSON.stringify(form.json), /hunter2/);
  const images = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'images' });
  t.ok(images.json.items.some((i: any) => i.source === 'background' && /bg\.png$/.test(i.src)));
  const bad = await d.rest(token, 'POST', '/v1/tools/browser_extract', { kind: 'tables', limit: 5001 });
  t.equal(bad.status, 400);
});

t.test('read: Markdown of a tab keeps headings, lists and links', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/article` });
  const r = await d.rest(token, 'POST', '/v1/tools/browser_read', {});
  const md = r.json.pages[0].markdown;
  t.match(md, /^# Descaling a kettle/m);
  t.match(md, /^## Vinegar method/m);
  t.match(md, /^- Step one/m);
  t.match(md, new RegExp(`\\[more tips\\]\\(${site.url}/more\\)`));
  t.match(r.json.text, /<<<page [0-9a-f]{12}[ >]/, 'fenced');
});

t.test('read of 50 URLs: 50 answers in order, with BM25 passages for a query', async (t) => {
  const urls = Array.from({ length: 50 }, (_, i) => `${site.url}/n/${i + 1}`);
  const r = await d.rest(token, 'POST', '/v1/tools/browser_read', { urls, query: 'emperor penguins antarctic', topK: 1 });
  t.equal(r.status, 200);
  t.equal(r.json.pages.length, 50);
  r.json.pages.forEach((p: any, i: number) => t.equal(p.url, urls[i], `answer ${i + 1} in order`));
  t.match(r.json.pages[36].passages[0].text, /Emperor penguins/);
  t.same(r.json.pages[36].passages[0].headingPath.at(-1), 'Penguins');
  const tooMany = await d.rest(token, 'POST', '/v1/tools/browser_read', { urls: [...urls, `${site.url}/n/1`] });
  t.equal(tooMany.status, 400);
  t.equal(tooMany.json.error.code, 'validation_error');
  const tabs = (await d.rest(token, 'GET', '/v1/tabs')).json.tabs.length;
  t.equal(d.daemon.env.pool.peek('alice')!.tabs.size, tabs, 'scratch tabs are gone');
});
