/** findText, query (css, xpath, text, regex), locators, check, similar and extract. */
import t from 'tap';
import { startHarness, type Harness, type Page } from './harness.js';

let h: Harness;
let p: Page;

t.before(async () => {
  h = await startHarness(t);
  h.route('/text', `
    <p id="greet"><b>Hel</b>lo wor<i>ld</i> and more</p>
    <p style="display:none">Hello world hidden</p>
    <div id="host"></div>
    <p>Order #4521 shipped; order #77 pending; ORDER #9 lost</p>
    <ul id="list"><li data-id="a">Alpha</li><li data-id="b">Beta</li><li data-id="c" style="visibility:hidden">Gamma</li></ul>
    <div class="cards"><div class="card"><span>One</span></div><div class="card"><span>Two</span></div><div class="card"><span>Two</span></div></div>
    <a href="/rel/path" title="Relative">relative link</a>
    <iframe srcdoc="<p>hello world in a frame</p>" width="300" height="50"></iframe>
    <script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<p class="sh">hello world in shadow</p><button>Shadow btn</button>'</script>`);
  const cards = Array.from({ length: 12 }, (_, i) => `
    <div class="card${i === 3 ? ' featured' : ''}"><a href="/p/${i + 1}"><img src="/img/${i + 1}.png" alt="Product ${i + 1}" width="80" height="60"></a>
    <h3 class="title">Product ${i + 1}</h3><span class="price">$${(i + 1) * 3}.00</span><span class="rating">${(i % 5) + 1} stars</span>
    <button>Add to cart</button><button>Wishlist</button></div>`).join('');
  h.route('/listing', `<h1>Shop</h1><div class="grid">${cards}</div><p style="display:none" class="card">Hidden card</p>`);
  h.route('/table', `
    <table id="t"><caption>Prices</caption><thead><tr><th>Item</th><th>Price</th><th>Qty</th></tr></thead>
    <tbody><tr><td>Apple</td><td>1.20</td><td>3</td></tr><tr><td>Pear | green</td><td>0.90</td><td>12</td></tr>
    <tr style="display:none"><td>Ghost</td><td>0</td><td>0</td></tr></tbody></table>
    <form action="/login" method="post"><label>User <input name="user" value="ada"></label><label>Password <input type="password" name="pw" value="hunter2"></label>
    <select name="lang"><option>en</option><option selected>de</option></select><input type="hidden" name="csrf" value="tok"></form>
    <a href="/about">About us</a> <a href="https://127.0.0.1:1/x" rel="nofollow">Elsewhere</a> <a href="/img"><img src="/i.png" alt="Pic link"></a>
    <div style="background-image:url(/bg.png);width:50px;height:50px"></div>`);
});

t.test('findText: across inline elements, in shadow roots and frames; refs; context; scrolling', async (t) => {
  p = await h.open('/text');
  const r = await p.call('findText', { text: 'HELLO   world' });
  t.equal(r.matches.length, 3, 'inline-split, shadow and frame; not the hidden one');
  t.equal(r.total, 3);
  const [first, shadow, frame] = r.matches;
  t.equal(first.text, 'Hello world');
  t.equal(first.context, 'Hello world and more');
  t.equal((await p.call('elementInfo', first.ref) as { tag: string }).tag, 'p', 'the deepest element holding the whole match');
  t.equal(await p.evalMain(`document.getElementById('greet').textContent`), 'Hello world and more');
  t.match(shadow.ref, /^e\d+$/);
  t.equal((await p.call('elementInfo', shadow.ref) as { tag: string }).tag, 'p');
  t.match(frame.ref, /^f1:e\d+$/, 'a frame match has a frame ref');
  const one = await p.call('findText', { text: 'hel' });
  t.equal((await p.call('elementInfo', one.matches[0].ref) as { tag: string }).tag, 'b', 'a match inside one inline element maps to it');
  t.same((await p.call('findText', { text: 'zebra crossing' })).matches, []);
  const limited = await p.call('findText', { text: 'o', limit: 2 });
  t.equal(limited.matches.length, 2);
  t.ok((limited.total ?? 0) > 2);
  // Scrolls the first match into view.
  h.route('/far', '<div style="height:4000px"></div><p id="x">Needle here</p>');
  const far = await h.open('/far');
  await far.call('findText', { text: 'needle' });
  t.ok((await far.evalMain<number>('scrollY')) > 2000, 'scrolled to the match');
  await far.close();
});

t.test('query css, xpath, text, regex: visible matches, limit and total, attrs, locators', async (t) => {
  const css = await p.call('query', { css: '#list li', attr: ['data-id', 'nope'] });
  t.same(css.matches.map((m) => m.text), ['Alpha', 'Beta'], 'the hidden Gamma is left out');
  t.same(css.matches.map((m) => m.attrs), [{ 'data-id': 'a', nope: null }, { 'data-id': 'b', nope: null }]);
  t.equal(css.total, 2);
  t.equal((await p.call('query', { css: '#list li', includeHidden: true })).total, 3);
  const xp = await p.call('query', { xpath: '//li[@data-id="b"]' });
  t.same(xp.matches.map((m) => m.text), ['Beta']);
  const xpText = await p.call('query', { xpath: '//li/text()' });
  t.same(xpText.matches.map((m) => m.tag), ['li', 'li'], 'text nodes map to their element');
  const re = await p.call('query', { regex: 'order #\\d+', flags: 'i' });
  t.equal(re.total, 1, 'deepest element containing the matches');
  t.equal(re.matches[0].tag, 'p');
  const anchored = await p.call('query', { regex: '^(alpha|beta)$', flags: 'i' });
  t.same(anchored.matches.map((m) => m.text), ['Alpha', 'Beta']);
  const txt = await p.call('query', { text: 'beta' });
  t.same(txt.matches.map((m) => m.tag), ['li']);
  const split = await p.call('query', { text: 'hello world' });
  t.same(split.matches.map((m) => m.text), ['Hello world and more', 'hello world in shadow', 'hello world in a frame'], 'across inline elements, shadow roots, frames');
  const shadowCss = await p.call('query', { css: 'p.sh' });
  t.equal(shadowCss.total, 1, 'css reaches into open shadow roots');
  t.equal(shadowCss.matches[0].locator, '#host >>> p.sh');
  const limited = await p.call('query', { css: 'p, li', limit: 1 });
  t.equal(limited.matches.length, 1);
  t.ok(limited.total > 1, 'total counts them all');
  const scoped = await p.call('query', { css: 'span', scope: '.cards' });
  t.equal(scoped.total, 3);
  const scopedText = await p.call('query', { text: 'two', scope: '.card' });
  t.equal(scopedText.total, 2);
  const link = await p.call('query', { css: 'a', attr: ['href', 'title'] });
  t.same(link.matches[0].attrs, { href: `${h.url}/rel/path`, title: 'Relative' }, 'href made absolute');
  for (const bad of [{ css: 'p', xpath: '//p' }, {}, { regex: '(' }, { css: '!!' }, { xpath: '//[' }, { regex: 'a', flags: 'g' }, { css: 'p', scope: '.nothing-here' }]) {
    const r = await p.fails('query', bad);
    t.equal(r.code, 'validation_error', `validation_error for ${JSON.stringify(bad)}: ${r.message}`);
  }
});

t.test('locators round-trip: querySelectorAll(locator) is exactly the element', async (t) => {
  const all = await p.call('query', { css: 'li, span, p, a, b, i, div', limit: 500 });
  t.ok(all.total > 10);
  for (const m of all.matches) {
    if (m.locator.includes('>>>')) continue;
    const ok = await p.evalWorld<boolean>(`(() => { const r = document.querySelectorAll(${JSON.stringify(m.locator)}); return r.length === 1 && r[0] === __browserd.elementFor(${JSON.stringify(m.ref)}).value })()`);
    t.ok(ok, `${m.locator} -> ${m.text.slice(0, 30)}`);
  }
  t.equal(all.matches.find((m) => m.text === 'Beta')!.locator, '#list > li:nth-of-type(2)', 'anchored on the nearest id');
  t.equal(all.matches.find((m) => m.text === 'relative link')!.locator, 'a[href="/rel/path"]');
  // Deep locators resolve through the same selector syntax.
  const deep = await p.call('query', { css: '#host >>> button' });
  t.equal(deep.total, 1);
  t.equal(await p.call('check', { selector: deep.matches[0].locator }), true);
});

t.test('check: text and selector, gone', async (t) => {
  t.equal(await p.call('check', { text: 'ALPHA' }), true);
  t.equal(await p.call('check', { text: 'Gamma' }), false, 'hidden text does not count');
  t.equal(await p.call('check', { selector: '#list li[data-id=c]' }), false, 'hidden element does not count');
  t.equal(await p.call('check', { selector: '#list li[data-id=c]', gone: true }), true);
  t.equal(await p.call('check', { text: 'hello world in shadow' }), true);
  t.match(await p.fails('check', { selector: '!!' }), { code: 'validation_error', message: /invalid CSS selector/ });
});

t.test('similar finds every card of a listing with fields', async (t) => {
  const l = await h.open('/listing');
  const snap = (await l.call('snapshot', {})).text;
  const ref = /link "Product 5" \[ref=(e\d+)\]/.exec(snap)![1];
  const r = await l.call('similar', { ref });
  t.equal(r.total, 12, 'all twelve cards (one has an extra class), not the hidden one');
  t.same(r.items[0].fields.title, 'Product 1');
  t.equal(r.items[11].fields.price, '$36.00');
  t.equal(r.items[0].fields.link, `${h.url}/p/1`);
  t.equal(r.items[0].fields.image, `${h.url}/img/1.png`);
  t.equal(r.items[2].fields.rating, '3 stars');
  t.equal(r.itemLocator, 'div.grid > div.card');
  t.equal(await l.evalMain(`document.querySelectorAll(${JSON.stringify(r.itemLocator)}).length`), 12);
  const fromButton = await l.call('similar', { ref: /button "Wishlist" \[ref=(e\d+)\]/.exec(snap)![1], limit: 3 });
  t.equal(fromButton.total, 12, 'from a button inside a card: still the cards');
  t.equal(fromButton.items.length, 3);
  const lone = await l.fails('similar', { ref: /heading "Shop" \[level=1\]/.test(snap) ? (await l.call('query', { css: 'h1' })).matches[0].ref : '' });
  t.match(lone, { ok: false, code: 'action_failed', message: /no repeated item/ });
  t.equal((await l.fails('similar', { ref: 'e9999' })).code, 'stale_ref');
  await l.close();
});

t.test('extract: tables cell for cell, links, meta, form with password masked, images', async (t) => {
  const x = await h.open('/table');
  const tables = await x.call('extract', { kind: 'tables' });
  t.same(tables.items, [{ headers: ['Item', 'Price', 'Qty'], rows: [['Apple', '1.20', '3'], ['Pear | green', '0.90', '12']], locator: '#t', caption: 'Prices' }]);
  t.equal(tables.total, 2, 'the hidden row is left out');
  t.equal((await x.call('extract', { kind: 'tables', includeHidden: true })).total, 3);
  t.equal(((await x.call('extract', { kind: 'tables', limit: 1 })).items[0] as { rows: unknown[] }).rows.length, 1, 'limit counts rows');
  const links = (await x.call('extract', { kind: 'links' })).items as { text: string; href: string; rel?: string }[];
  t.same(links, [
    { text: 'About us', href: `${h.url}/about` },
    { text: 'Elsewhere', href: 'https://127.0.0.1:1/x', rel: 'nofollow' },
    { text: 'Pic link', href: `${h.url}/img` },
  ]);
  const meta = (await x.call('extract', { kind: 'meta' })).items as { name: string; content: string }[];
  t.ok(meta.some((m) => m.name === 'title' && m.content === 't'));
  const form = (await x.call('extract', { kind: 'form' })).items as { action: string; method: string; fields: { name: string; value: string; options?: string[]; ref?: string }[] }[];
  t.equal(form[0].action, `${h.url}/login`);
  t.equal(form[0].method, 'post');
  t.equal(form[0].fields.find((f) => f.name === 'user')!.value, 'ada');
  t.equal(form[0].fields.find((f) => f.name === 'pw')!.value, '••••');
  t.notMatch(JSON.stringify(form), /hunter2/);
  t.same(form[0].fields.find((f) => f.name === 'lang')!.options, ['en', 'de']);
  t.notOk(form[0].fields.some((f) => f.name === 'csrf'), 'hidden inputs left out');
  t.match(form[0].fields[0].ref!, /^e\d+$/);
  const images = (await x.call('extract', { kind: 'images' })).items as { source: string; src: string; link?: string }[];
  t.ok(images.some((i) => i.source === 'background' && i.src === `${h.url}/bg.png`));
  t.ok(images.some((i) => i.source === 'img' && i.link === `${h.url}/img`));
  t.match(await x.fails('extract', { kind: 'tables', scope: '.none' }), { code: 'validation_error', message: /matches no visible element/ });
  await x.close();
});

t.test('visibleHtml: absolute URLs, shadow roots and same-origin frames inline, current form values', async (t) => {
  h.route('/html', `<h1 class="t" style="color:red" onclick="x()">Title</h1><a href="/rel/a?b=1">rel</a><img src="pic.png" alt="Pic" srcset="a.png 1x">
    <div id="host"></div><iframe srcdoc="<p>framed text</p>"></iframe><iframe src="OTHER"></iframe>
    <input name="q" value="typed"><input type="password" value="hunter2"><select><option>a</option><option selected>b</option></select>
    <script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<p>shadow <slot></slot></p>'; document.getElementById('host').innerHTML='<b>slotted</b>'</script>`.replace('OTHER', `${h.otherUrl}/x`));
  const x = await h.open('/html');
  await x.evalMain(`document.querySelector('[name=q]').value = 'changed'`);
  const r = await x.call('visibleHtml', {});
  t.equal(r.url, `${h.url}/html`);
  t.match(r.html, /^<!DOCTYPE html><html><head><title>t<\/title>/);
  t.match(r.html, /<h1 class="t">Title<\/h1>/, 'style and handlers dropped');
  t.match(r.html, new RegExp(`<a href="${h.url}/rel/a\\?b=1">rel</a>`), 'absolute href');
  t.match(r.html, new RegExp(`<img src="${h.url}/pic.png" alt="Pic">`), 'absolute src, no srcset');
  t.match(r.html, /<div id="host"><p>shadow <b>slotted<\/b><\/p><\/div>/, 'shadow root inline, slot filled');
  t.match(r.html, /<div data-frame-src="about:srcdoc"><p>framed text<\/p><\/div>/, 'same-origin frame inline');
  t.match(r.html, new RegExp(`<iframe src="${h.otherUrl}/x"></iframe>`), 'cross-origin frame kept as a link');
  t.match(r.html, /<input name="q" value="changed">/, 'the current value');
  t.notMatch(r.html, /hunter2/, 'never a password');
  t.match(r.html, /<option selected="">b<\/option>|<option selected>b<\/option>/);
  t.notMatch(r.html, /<script/);
  await x.close();
});
