/** What a page becomes: hidden parts left out of http HTML, formats, fields, metadata, chunks, auto's test. */
import t from 'tap';
import { checkFieldSelectors, checkOutputSchema, markdownToText, needsBrowser, renderPage } from '../../../daemon/crawl/page-output.js';
import { normaliseCrawlSpec } from '../../../daemon/crawl/params.js';
import { passesRules, wildcardMatch, siteHost } from '../../../daemon/crawl/rules.js';
import { closeMarkdownThreads } from '../../../daemon/read/index.js';
import type { PageInput } from '../../../daemon/crawl/types.js';

t.teardown(() => closeMarkdownThreads());

const spec = (extra: Record<string, unknown> = {}) => normaliseCrawlSpec({ startUrls: ['http://p.test/'], ...extra }, (u) => u);
const page = (html: string, extra: Partial<PageInput> = {}): PageInput => ({ url: 'http://p.test/a/', finalUrl: 'http://p.test/a/', status: 200, contentType: 'text/html; charset=utf-8', html, via: 'http', visibleOnly: false, ...extra });

const HIDDEN = `<html lang="en"><head><title>T</title><meta name="description" content="About things"><link rel="canonical" href="/canon">
<style>.gone { display: none } @media print { .print { display:none } } .faint{opacity:0}</style>
<script type="application/ld+json">{"@type":"Article","name":"T"}</script></head><body>
<h1>Shown</h1><p>Visible text with a zero\u200Bwidth space.</p>
<p hidden>HIDDEN-ATTR</p><p style="display:none">HIDDEN-INLINE</p><p class="gone">HIDDEN-RULE <a href="/trap">trap</a></p>
<p class="faint">HIDDEN-OPACITY</p><template><p>HIDDEN-TEMPLATE</p></template><!-- HIDDEN-COMMENT --><p class="print">PRINT-ONLY-RULE</p>
<p aria-hidden="true">ARIA-SHOWN</p><a href="next#frag">Next</a><a href="mailto:x@y">mail</a><img src="/i.png" alt="pic">
<h2>Section two</h2><p>More words here.</p></body></html>`;

t.test('http HTML loses what the HTML says is hidden; includeHidden and browser HTML keep it', async (t) => {
  const out = await renderPage(page(HIDDEN), spec({ formats: ['links', 'images', 'metadata', 'text'] }));
  for (const s of ['HIDDEN-ATTR', 'HIDDEN-INLINE', 'HIDDEN-RULE', 'HIDDEN-OPACITY', 'HIDDEN-TEMPLATE', 'HIDDEN-COMMENT']) t.notMatch(out.content!, s, `${s} left out`);
  t.match(out.content!, /zerowidth/, 'zero-width characters removed');
  t.match(out.content!, /ARIA-SHOWN/, 'aria-hidden is not invisible');
  t.match(out.content!, /PRINT-ONLY-RULE/, 'a rule inside @media is not judged');
  t.same(out.links, ['http://p.test/a/next'], 'visible http links only, absolute, fragment dropped');
  t.same(out.formats!.images, [{ src: 'http://p.test/i.png', alt: 'pic' }]);
  t.same(out.metadata, { title: 'T', description: 'About things', language: 'en', canonicalUrl: 'http://p.test/canon', headings: [{ level: 1, text: 'Shown' }, { level: 2, text: 'Section two' }], jsonLd: [{ '@type': 'Article', name: 'T' }] });
  t.notMatch(out.formats!.text!, /[#*[\]]/, 'text has no Markdown syntax');
  const all = await renderPage(page(HIDDEN), spec({ includeHidden: true }));
  t.match(all.content!, /HIDDEN-INLINE/);
  t.ok(all.links.includes('http://p.test/trap'));
  const browser = await renderPage(page('<p hidden>KEPT</p>', { visibleOnly: true, via: 'browser' }), spec());
  t.match(browser.content!, /KEPT/, 'browser HTML was judged in the page already');
});

t.test('fields, schema, maxChars, formats, json', async (t) => {
  const html = '<h1>Item</h1><span class="p">$5</span><a class="n" href="/n1">1</a><a class="n" href="/n2">2</a>';
  const out = await renderPage(page(html), spec({ fields: { name: 'h1', price: '.p', links: { css: 'a.n', attr: 'href', all: true }, none: '.missing' }, outputSchema: { type: 'object', properties: { price: { type: 'number' } } }, maxChars: 4 }));
  t.same(out.fields, { name: 'Item', price: '$5', links: ['http://p.test/n1', 'http://p.test/n2'], none: null });
  t.match(out.schemaErrors![0], /\/price: must be number/);
  t.equal(out.content!.length, 4);
  t.ok(out.omittedChars! > 0);
  const json = await renderPage(page(html), spec({ format: 'json' }));
  t.equal(json.content, undefined);
  t.same(json.metadata!.headings, [{ level: 1, text: 'Item' }]);
  await t.rejects(renderPage(page('%PDF-1.7', { contentType: 'application/pdf' }), spec()), { code: 'action_failed' });
  t.equal((await renderPage(page('{"a":1}', { contentType: 'application/json' }), spec())).content, '{\n  "a": 1\n}');
  t.throws(() => checkFieldSelectors({ x: 'a[' }), { code: 'validation_error' });
  t.throws(() => checkOutputSchema({ type: 'nonsense' }), { code: 'validation_error' });
});

t.test('chunks cite their place; passages answer a query', async (t) => {
  const html = `<h1>Guide</h1><p>${'Intro words. '.repeat(40)}</p><h2>Setup</h2><p>${'Install the thing. '.repeat(40)}</p><h2>Use</h2><p>Run it daily.</p>`;
  for (const by of ['tokens', 'headings'] as const) {
    const out = await renderPage(page(html), spec({ chunk: { by, size: 60, overlap: 10 } }));
    t.ok(out.chunks!.length > 2, by);
    for (const c of out.chunks!) t.equal(out.content!.slice(c.start, c.end), c.text, `${by}: offsets slice back to the text`);
    t.ok(out.chunks!.some((c) => c.headingPath.join('>') === 'Guide>Setup'), `${by}: heading paths`);
  }
  const q = await renderPage(page(html), spec({ query: 'run daily', topK: 1 }));
  t.equal(q.content, undefined);
  t.match(q.passages![0]!.text, /Run it daily/);
  t.same(q.passages![0]!.headingPath, ['Guide', 'Use']);
});

t.test('auto mode: app shells need the browser, articles do not', async (t) => {
  t.ok(needsBrowser(page('<div id="root"></div><script src="/app.js"></script>')));
  t.ok(needsBrowser(page('<noscript>You need to enable JavaScript to run this app.</noscript><div id="x"></div>')));
  t.ok(needsBrowser(page('<p>Loading…</p><script>render()</script>')));
  t.notOk(needsBrowser(page(`<article><h1>Post</h1><p>${'Plenty of server-rendered text. '.repeat(20)}</p></article><script>track()</script>`)));
  t.notOk(needsBrowser(page('<p>short, no scripts</p>')));
});

t.test('markdownToText and the link rules', async (t) => {
  t.equal(markdownToText('# Title\n\nSome **bold** and [a link](http://x/) and `code`.'), 'Title\n\nSome bold and a link and code.');
  // A table's rule line goes with its line break: rows stay together, and the text before stays apart.
  t.equal(markdownToText('Before\n\n| a | b |\n| --- | :---: |\n| 1 | 2 |\n\nafter'), 'Before\n\na\tb\n1\t2\n\nafter');
  t.ok(wildcardMatch('/blog/*', '/blog/post-1'));
  t.notOk(wildcardMatch('/blog/*', '/blogs/x'));
  t.ok(wildcardMatch('*post-*', '/blog/post-2'));
  t.notOk(wildcardMatch('/a*b*c', '/acb'));
  t.ok(wildcardMatch('a.b(c)?', 'a.b(c)?'), 'everything but * is literal');
  t.notOk(passesRules('http://s.test/blog/post-2', ['/blog/*'], ['*post-2']), 'deny wins');
  t.ok(passesRules('http://s.test/blog/post-3?x=1', ['/blog/*'], []), 'path and query');
  t.notOk(passesRules('http://s.test/Blog/x', ['/blog/*'], []), 'case-sensitive');
  t.ok(passesRules('http://s.test/x', ['http://s.test/*'], []), 'a pattern with :// matches the whole URL');
  t.equal(siteHost('WWW.Example.com.'), 'example.com');
  t.throws(() => normaliseCrawlSpec({}, (u) => u), { code: 'validation_error' });
  t.equal(normaliseCrawlSpec({ startUrls: ['http://a/'], mode: 'browser', concurrency: 8 }, (u) => u).concurrency, 2, 'at most 2 in the browser');
});
