/** The one visibility predicate: each way of hiding text is left out of every read and brought back by includeHidden. */
import t from 'tap';
import { startHarness, type Harness, type Page } from './harness.js';

let h: Harness;
let p: Page;

/** Each case hides the word SECRET-<name>; VISIBLE-<name> marks look-alikes a person does see. */
const CASES: Record<string, string> = {
  'display-none': '<p style="display:none">SECRET-display-none</p>',
  'visibility-hidden': '<p style="visibility:hidden">SECRET-visibility-hidden</p>',
  'visibility-collapse': '<p style="visibility:collapse">SECRET-visibility-collapse</p>',
  'opacity-zero': '<p style="opacity:0">SECRET-opacity-zero</p>',
  'opacity-ancestor': '<div style="opacity:0"><div><span>SECRET-opacity-ancestor</span></div></div>',
  'hidden-attribute': '<p hidden>SECRET-hidden-attribute</p>',
  'zero-size': '<div style="width:0;height:0;overflow:hidden">SECRET-zero-size</div>',
  'sr-only': '<span style="position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0">SECRET-sr-only</span>',
  clipped: '<p style="position:absolute;clip:rect(0,0,0,0)">SECRET-clipped</p>',
  'clip-path-inset': '<p style="clip-path:inset(50%)">SECRET-clip-path-inset</p>',
  'clip-path-circle': '<p style="clip-path:circle(0)">SECRET-clip-path-circle</p>',
  'off-screen-left': '<p style="position:absolute;left:-9999px">SECRET-off-screen-left</p>',
  'off-screen-top': '<p style="position:absolute;top:-5000px">SECRET-off-screen-top</p>',
  'off-screen-transform': '<p style="transform:translateX(-10000px)">SECRET-off-screen-transform</p>',
  'clipped-away': '<div style="width:200px;height:40px;overflow:hidden;position:relative"><p style="position:absolute;left:600px;top:0">SECRET-clipped-away</p></div>',
  'white-on-white': '<p style="color:#fff;background:#fff">SECRET-white-on-white</p>',
  'same-as-ancestor-bg': '<div style="background:#123456"><div><p style="color:#123457">SECRET-same-as-ancestor-bg</p></div></div>',
  'near-white-on-body': '<p style="color:#fdfdfd">SECRET-near-white-on-body</p>',
  'transparent-text': '<p style="color:transparent">SECRET-transparent-text</p>',
  'font-size-zero': '<p style="font-size:0">SECRET-font-size-zero</p>',
  'text-indent': '<h2 style="text-indent:-9999px;overflow:hidden">SECRET-text-indent</h2>',
  'scale-zero': '<p style="transform:scale(0)">SECRET-scale-zero</p>',
  'closed-details': '<details><summary>Open me</summary><p>SECRET-closed-details</p></details>',
  'in-hidden-frame': '<iframe style="display:none" srcdoc="<p>SECRET-in-hidden-frame</p>"></iframe>',
};

/** Hidden-looking cases that a person does see: they must stay in every read. */
const VISIBLE: Record<string, string> = {
  'below-the-fold': '<div style="height:3000px"></div><p>VISIBLE-below-the-fold</p>',
  'white-on-dark': '<div style="background:#000"><p style="color:#fff">VISIBLE-white-on-dark</p></div>',
  'white-on-image': '<div style="position:relative;height:80px"><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" style="position:absolute;inset:0;width:100%;height:80px"><p style="position:relative;color:#fff">VISIBLE-white-on-image</p></div>',
  'white-on-gradient': '<div style="background:linear-gradient(#000,#333)"><p style="color:#fff">VISIBLE-white-on-gradient</p></div>',
  'visible-child-of-hidden': '<div style="visibility:hidden"><p style="visibility:visible">VISIBLE-visible-child-of-hidden</p></div>',
  'aria-hidden-text': '<p aria-hidden="true">VISIBLE-aria-hidden-text</p>',
  'scrolled-container': '<div style="height:60px;overflow:auto"><div style="height:400px"></div><p>VISIBLE-scrolled-container</p></div>',
  'zero-height-overflowing': '<div style="height:0"><p>VISIBLE-zero-height-overflowing</p></div>',
  'open-details': '<details open><summary>Open</summary><p>VISIBLE-open-details</p></details>',
};

const NEVER = '<template><p>SECRET-template</p></template><!-- SECRET-comment --><script>var x = "SECRET-script"</script><style>.x::after{content:"SECRET-style"}</style>';

t.before(async () => {
  h = await startHarness(t);
  h.route('/hidden', `<p>Visible words</p>${Object.values(CASES).join('\n')}\n${NEVER}\n${Object.values(VISIBLE).join('\n')}`);
  p = await h.open('/hidden');
});

t.test('readText leaves out every hidden case and keeps the visible look-alikes', async (t) => {
  const plain = (await p.call('readText', {})).text;
  t.match(plain, /Visible words/);
  for (const c of Object.keys(CASES)) t.notMatch(plain, `SECRET-${c}`, `left out: ${c}`);
  for (const c of Object.keys(VISIBLE)) t.match(plain, `VISIBLE-${c}`, `kept: ${c}`);
  for (const c of ['template', 'comment', 'script', 'style']) t.notMatch(plain, `SECRET-${c}`, `left out: ${c}`);
  const all = (await p.call('readText', { includeHidden: true })).text;
  for (const c of Object.keys(CASES)) t.match(all, `SECRET-${c}`, `includeHidden brings back ${c}`);
  t.match(all, /SECRET-template/, 'includeHidden reads template content');
  t.match(all, /SECRET-comment/, 'includeHidden reads comments');
  t.notMatch(all, /SECRET-script|SECRET-style/, 'never script or style source');
});

t.test('snapshot leaves out the same cases (and aria-hidden), includeHidden brings them back', async (t) => {
  const plain = (await p.call('snapshot', {})).text;
  t.match(plain, /Visible words/);
  for (const c of Object.keys(CASES)) t.notMatch(plain, `SECRET-${c}`, `left out: ${c}`);
  for (const c of Object.keys(VISIBLE).filter((c) => c !== 'aria-hidden-text')) t.match(plain, `VISIBLE-${c}`, `kept: ${c}`);
  t.notMatch(plain, /VISIBLE-aria-hidden-text/, 'aria-hidden is not in the accessibility snapshot');
  const all = (await p.call('snapshot', { includeHidden: true })).text;
  for (const c of Object.keys(CASES)) t.match(all, `SECRET-${c}`, `includeHidden brings back ${c}`);
  t.match(all, /VISIBLE-aria-hidden-text/);
});

t.test('findText, query and check use the same predicate', async (t) => {
  for (const c of ['display-none', 'white-on-white', 'off-screen-left', 'sr-only', 'clipped-away']) {
    t.same((await p.call('findText', { text: `SECRET-${c}` })).matches, [], `findText skips ${c}`);
    t.equal((await p.call('findText', { text: `SECRET-${c}`, includeHidden: true })).matches.length, 1, `findText includeHidden finds ${c}`);
    t.equal((await p.call('query', { text: `SECRET-${c}` })).total, 0, `query text skips ${c}`);
    t.equal((await p.call('query', { text: `SECRET-${c}`, includeHidden: true })).total, 1, `query text includeHidden finds ${c}`);
    t.equal(await p.call('check', { text: `SECRET-${c}` }), false, `check does not see ${c}`);
  }
  t.equal((await p.call('findText', { text: 'VISIBLE-below-the-fold' })).matches.length, 1, 'below the fold is found');
  t.equal(await p.call('check', { text: 'visible-white-on-dark' }), true);
  t.equal(await p.call('check', { text: 'SECRET-display-none', gone: true }), true, 'gone: true holds while it is hidden');
  const css = await p.call('query', { css: 'p' });
  t.notOk(css.matches.some((m) => /SECRET/.test(m.text)), 'css matches are visible elements only');
  t.ok(css.matches.some((m) => /VISIBLE-below-the-fold/.test(m.text)));
  const cssAll = await p.call('query', { css: 'p', includeHidden: true, limit: 500 });
  t.ok(cssAll.total > css.total, 'includeHidden brings the hidden ones back');
});

t.test('visibleHtml drops hidden subtrees, hidden text, scripts, templates and comments', async (t) => {
  const { html } = await p.call('visibleHtml', {});
  t.match(html, /Visible words/);
  for (const c of [...Object.keys(CASES), 'template', 'comment', 'script', 'style']) t.notMatch(html, `SECRET-${c}`, `left out: ${c}`);
  for (const c of Object.keys(VISIBLE)) t.match(html, `VISIBLE-${c}`, `kept: ${c}`);
  const all = (await p.call('visibleHtml', { includeHidden: true })).html;
  for (const c of Object.keys(CASES)) t.match(all, `SECRET-${c}`, `includeHidden brings back ${c}`);
});

t.test('an off-canvas menu parked right of a page that cannot scroll sideways is hidden', async (t) => {
  h.route('/offcanvas', `<style>body{overflow-x:hidden;margin:0}</style><p>Page text</p>
    <nav style="position:absolute;top:0;left:100%;width:300px">SECRET-offcanvas</nav>
    <div style="width:3000px">VISIBLE-wide</div>`);
  const o = await h.open('/offcanvas');
  const text = (await o.call('readText', {})).text;
  t.match(text, /Page text/);
  t.match(text, /VISIBLE-wide/);
  t.notMatch(text, /SECRET-offcanvas/);
  t.match((await o.call('readText', { includeHidden: true })).text, /SECRET-offcanvas/);
  await o.close();
});

t.test('a style cache per call: a big page reads quickly', async (t) => {
  const rows = Array.from({ length: 3000 }, (_, i) => `<div class="r"><span style="color:#333">row ${i}</span> <b>x</b></div>`).join('');
  h.route('/big', `<div style="background:#fff">${rows}</div>`);
  await p.goto('/big');
  const t0 = Date.now();
  const r = await p.call('readText', {});
  const ms = Date.now() - t0;
  t.match(r.text, /row 2999 x/);
  t.comment(`readText of 3,000 rows: ${ms} ms`);
});

// ---------------------------------------------------------------- more ways to hide text (issue: hidden text stays hidden)

const WHITE_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAADklEQVR4nGP4DwYMEAoAU7oL9ZisIGcAAAAASUVORK5CYII=';
const DARK_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAADklEQVR4nGMQAQMGCAUABp4A8UKtZ7MAAAAASUVORK5CYII=';

/** Each hides SECRET2-<name> from a person; every read must leave it out. */
const MORE: Record<string, string> = {
  'details-direct-text': '<details><summary>Closed</summary>SECRET2-details-direct-text</details>',
  'details-nested': '<details><summary>Closed too</summary><div><section><span>SECRET2-details-nested</span></section></div></details>',
  'content-visibility-text': '<div style="content-visibility:hidden">SECRET2-content-visibility-text</div>',
  'content-visibility-child': '<div style="content-visibility:hidden"><p>SECRET2-content-visibility-child</p></div>',
  overlay: '<div style="position:relative;width:400px"><p>SECRET2-overlay</p><div style="position:absolute;inset:0;background:#fff"></div></div>',
  'overlay-sibling-positioned': '<div style="position:relative;width:400px;height:60px"><span style="position:absolute;top:10px;left:10px">SECRET2-overlay-sibling-positioned</span><div style="position:absolute;inset:0;background:rgb(250,250,250);z-index:2"></div></div>',
  'filter-opacity': '<p style="filter:opacity(0)">SECRET2-filter-opacity</p>',
  'filter-opacity-ancestor': '<div style="filter:blur(0px) opacity(0%)"><p>SECRET2-filter-opacity-ancestor</p></div>',
  'text-on-same-gradient': '<div style="background:linear-gradient(#fff, #fefefe)"><p style="color:#fff">SECRET2-text-on-same-gradient</p></div>',
  'text-on-same-image': `<div style="background:url(${WHITE_PNG})"><p style="color:#fff">SECRET2-text-on-same-image</p></div>`,
  'svg-zero': '<svg width="0" height="0"><text x="0" y="10">SECRET2-svg-zero</text></svg>',
  'iframe-zero': '<iframe width="0" height="0" style="border:0" srcdoc="<p>SECRET2-iframe-zero</p>"></iframe>',
  'img-1x1-alt': '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" width="1" height="1" alt="SECRET2-img-1x1-alt">',
  'option-hidden': '<select aria-label="Pick"><option>Visible choice</option><option hidden>SECRET2-option-hidden</option></select>',
};

/** Look-alikes a person does see. */
const MORE_VISIBLE: Record<string, string> = {
  'text-over-overlay': '<div style="position:relative;width:400px;height:60px"><div style="position:absolute;inset:0;background:#eee"></div><p style="position:relative">VISIBLE2-text-over-overlay</p></div>',
  'text-in-overlay': '<div style="position:relative;width:400px;height:60px"><div style="position:absolute;inset:0;background:#eee"><p>VISIBLE2-text-in-overlay</p></div></div>',
  'translucent-backdrop': '<div style="position:relative;width:400px"><p>VISIBLE2-translucent-backdrop</p><div style="position:absolute;inset:0;background:rgba(0,0,0,0.4)"></div></div>',
  'white-on-dark-image': `<div style="background:url(${DARK_PNG})"><p style="color:#fff">VISIBLE2-white-on-dark-image</p></div>`,
  'white-on-dark-gradient': '<div style="background:linear-gradient(#fff, #000)"><p style="color:#fff">VISIBLE2-white-on-dark-gradient</p></div>',
  'svg-sized': '<svg width="200" height="20"><text x="0" y="15">VISIBLE2-svg-sized</text></svg>',
  'iframe-sized': '<iframe width="300" height="60" style="border:0" srcdoc="<p>VISIBLE2-iframe-sized</p>"></iframe>',
  'img-alt-sized': '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" width="40" height="40" alt="VISIBLE2-img-alt-sized">',
  // Not loaded yet (lazy, far below the fold), so no size yet: not a 1x1 image.
  'img-lazy-alt': '<div style="height:6000px"></div><a href="/item"><img loading="lazy" src="/never-fetched.png" alt="VISIBLE2-img-lazy-alt"></a>',
};

t.test('more hidden cases: every read leaves them out, includeHidden brings them back', async (t) => {
  h.route('/more', `<p>Visible words</p>${Object.values(MORE).join('\n')}\n${Object.values(MORE_VISIBLE).join('\n')}`);
  const q = await h.open('/more');
  const reads: Record<string, (hidden: boolean) => Promise<string>> = {
    readText: async (includeHidden) => (await q.call('readText', { includeHidden })).text,
    snapshot: async (includeHidden) => (await q.call('snapshot', { includeHidden })).text,
    visibleHtml: async (includeHidden) => (await q.call('visibleHtml', { includeHidden })).html,
    extract: async (includeHidden) => JSON.stringify([(await q.call('extract', { kind: 'images', includeHidden })).items, (await q.call('extract', { kind: 'form', includeHidden })).items]),
  };
  for (const [name, read] of Object.entries(reads)) {
    const plain = await read(false);
    for (const c of Object.keys(MORE)) t.notMatch(plain, `SECRET2-${c}`, `${name} leaves out ${c}`);
    // readText is text only (no alt text); visibleHtml keeps an SVG's label, not its drawing's text.
    const keeps = Object.keys(MORE_VISIBLE).filter((c) => !(name === 'readText' && c.startsWith('img-')) && !(name === 'visibleHtml' && c === 'svg-sized'));
    if (name !== 'extract') for (const c of keeps) t.match(plain, `VISIBLE2-${c}`, `${name} keeps ${c}`);
  }
  const all = await reads.readText(true);
  for (const c of Object.keys(MORE)) if (c !== 'img-1x1-alt' && c !== 'option-hidden') t.match(all, `SECRET2-${c}`, `includeHidden reads ${c}`);
  t.match(await reads.snapshot(true), /SECRET2-img-1x1-alt/);
  for (const c of Object.keys(MORE)) {
    t.same((await q.call('findText', { text: `SECRET2-${c}` })).matches, [], `findText skips ${c}`);
    t.equal((await q.call('query', { text: `SECRET2-${c}` })).total, 0, `query text skips ${c}`);
    t.equal(await q.call('check', { text: `SECRET2-${c}` }), false, `check does not see ${c}`);
  }
  t.equal((await q.call('findText', { text: 'VISIBLE2-text-over-overlay' })).matches.length, 1);
  await q.close();
});

t.test('zero-width characters are removed from page text in every read', async (t) => {
  const zw = (s: string) => s.split('').join('\u200b');
  h.route('/zw', `<h1>${zw('Pass')}word</h1><p id="p">Trans\u200cfer \u2060fu\ufeffnds now</p><a href="/x" aria-label="Pa\u200bge">x</a>
    <table><tr><td>Ce\u200dll</td></tr></table><p>Family: 👨\u200d👩\u200d👧</p>`);
  const q = await h.open('/zw');
  const texts = [
    (await q.call('readText', {})).text,
    (await q.call('snapshot', {})).text,
    (await q.call('visibleHtml', {})).html,
    JSON.stringify((await q.call('extract', { kind: 'tables' })).items),
    JSON.stringify((await q.call('query', { css: 'p' })).matches.map((m) => m.text)),
    JSON.stringify((await q.call('findText', { text: 'transfer' })).matches),
  ];
  for (const [i, s] of texts.entries()) {
    t.notMatch(s, /[\u200b\u200c\u2060\ufeff]/, `read ${i}: no zero-width characters`);
    t.notMatch(s, /Ce\u200dll/, `read ${i}: no joiner between letters`);
  }
  t.match(texts[0], /Password/, 'the split word is whole again');
  t.match(texts[0], /Transfer funds now/);
  t.match(texts[1], /link "Page"/, 'names too');
  t.match(texts[0], /👨\u200d👩\u200d👧/, 'emoji sequences keep their joiners');
  t.equal((await q.call('findText', { text: 'password' })).matches.length, 1, 'findText finds the word the page split');
  t.equal((await q.call('query', { text: 'Transfer funds' })).total >= 1, true);
  await q.close();
});
