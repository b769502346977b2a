/** One ref space per document, and refs for what a person hovers, drags or clicks without an interactive role. */
import t from 'tap';
import { startHarness, type Harness } from './harness.js';

let h: Harness;

t.before(async () => {
  h = await startHarness(t);
  h.route('/list', `<h1>Shop</h1>
    <ul>${Array.from({ length: 5 }, (_, i) => `<li class="item"><span class="name">Hat ${i + 1}</span> <a href="/h/${i + 1}">View</a></li>`).join('')}</ul>
    <p id="tail">Tail text</p>`);
  h.route('/targets', `
    <div id="menu-attr" onmouseenter="void 0">Account <div style="display:none"><a href="/out">Sign out</a></div></div>
    <div id="menu-listener">Products <div class="sub" style="display:none"><a href="/shoes">Shoes</a></div></div>
    <div id="click-listener">Open card</div>
    <div id="click-prop">Property handler</div>
    <div id="box" draggable="true" style="width:60px;height:40px">Box</div>
    <div id="tab" tabindex="0">Focusable tile</div>
    <div id="dbl" ondblclick="void 0">Double me</div>
    <div id="pointer" style="cursor:pointer">Pointer tile</div>
    <div id="plain">Plain words</div>
    <div id="delegating">Region <button>Real button</button></div>
    <div id="host"></div>
    <script>
      document.getElementById('menu-listener').addEventListener('mouseenter', () => {});
      document.getElementById('click-listener').addEventListener('click', () => {});
      document.getElementById('click-prop').onclick = () => {};
      document.getElementById('delegating').addEventListener('click', () => {});
      document.getElementById('plain').addEventListener('keydown', () => {});
      const root = document.getElementById('host').attachShadow({ mode: 'open' });
      root.innerHTML = '<div id="in-shadow">Shadow tile</div>';
      root.getElementById('in-shadow').addEventListener('pointerdown', () => {});
    </script>`);
});

t.test('a ref from findText, query or similar still resolves after a snapshot, as long as its element lives', async (t) => {
  const p = await h.open('/list');
  const found = (await p.call('findText', { text: 'Tail text' })).matches[0].ref;
  const queried = (await p.call('query', { css: 'h1' })).matches[0].ref;
  const first = (await p.call('query', { css: '.item' })).matches[0].ref;
  const similar = await p.call('similar', { ref: first });
  t.ok(similar.items.length >= 5, JSON.stringify(similar));
  const sim = similar.items[4].ref;
  // What browser_hover does: a snapshot first (to mark what is new), then the pointer.
  await p.call('snapshot', {});
  await p.call('snapshot', {});
  for (const ref of [found, queried, first, sim]) {
    const pt = await p.answer('pointFor', ref);
    t.ok(pt.ok, `${ref} resolves after two snapshots: ${JSON.stringify(pt)}`);
  }
  // A removed element's ref is stale, whoever handed it out.
  await p.evalMain(`document.getElementById('tail').remove()`);
  t.equal((await p.fails('pointFor', found)).code, 'stale_ref');
  // Refs that were never handed out are stale even when the number exists.
  t.equal((await p.fails('pointFor', 'e9999')).code, 'stale_ref');
  await p.close();
});

t.test('hover, drag and click targets without a role get refs; plain text and delegating regions do not', async (t) => {
  const p = await h.open('/targets');
  const s = await p.call('snapshot', {});
  t.comment(`\n${s.text}`);
  t.match(s.text, /^- clickable "Account" \[ref=e\d+\]$/m, 'onmouseenter attribute (a wrapper of its hidden menu)');
  t.match(s.text, /^- clickable "Products" \[ref=e\d+\]$/m, 'mouseenter listener added by page script');
  t.match(s.text, /^- clickable "Open card" \[ref=e\d+\]$/m, 'click listener added by page script');
  t.match(s.text, /^- clickable "Property handler" \[ref=e\d+\]$/m, 'onclick set as a property');
  t.match(s.text, /^- clickable "Box" \[ref=e\d+\] \[draggable\]$/m, 'draggable box');
  t.match(s.text, /^- clickable "Focusable tile" \[ref=e\d+\]$/m, 'tabindex');
  t.match(s.text, /^- clickable "Double me" \[ref=e\d+\]$/m, 'ondblclick attribute');
  t.match(s.text, /^- clickable "Pointer tile" \[ref=e\d+\]$/m, 'cursor:pointer');
  t.match(s.text, /^- clickable "Shadow tile" \[ref=e\d+\]$/m, 'listener inside an open shadow root');
  t.match(s.text, /^- text: Plain words( · Region)?$/m, 'a keydown listener is not a pointer target');
  t.notMatch(s.text, /clickable "Region/, 'a click listener around a real button is structure');
  t.match(s.text, /^- button "Real button" \[ref=e\d+\]$/m);
  t.notMatch(s.text, /Sign out|Shoes/, 'hidden menus stay hidden');
  // The page sees no trace: no attribute was added anywhere.
  const attrs = await p.evalMain<string[]>(`[...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => /browserd/i.test(n))`);
  t.same(attrs, []);
  await p.close();
});
