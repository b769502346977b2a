/** The compact snapshot: format, stable refs, `*` marks, shadow roots, frames, big tables, stale refs. */
import t from 'tap';
import { startHarness, type Harness } from './harness.js';

let h: Harness;

t.before(async () => {
  h = await startHarness(t);
  h.route('/form', `
    <header><nav aria-label="Main"><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li></ul></nav></header>
    <main>
      <div class="wrap"><div class="inner"><h2>Products</h2></div></div>
      <p>Some <b>bold</b> words   and
         more words.</p>
      <form>
        <label for="email">Email</label><input id="email" value="a@b.c">
        <label><input type="checkbox" checked> Remember me</label>
        <label>Password <input type="password" value="hunter2"></label>
        <select aria-label="Country"><option>Germany</option><option selected>France</option></select>
        <button disabled>Buy</button>
        <textarea aria-label="Note">line one</textarea>
      </form>
      <a href="/next">Next page</a>
      <div role="button" tabindex="0">Custom</div>
      <div style="cursor:pointer" onclick="void 0">Clickable card</div>
      <details><summary>More</summary><p>inside</p></details>
      <p>${'long text '.repeat(60)}</p>
      <img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" alt="A pixel" width="10" height="10">
      <img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" alt="" width="10" height="10">
    </main>`);
  h.route('/frames', `<h1>Outer</h1>
    <iframe src="/inner" width="400" height="120"></iframe>
    <iframe srcdoc="<button>Second frame</button>" width="300" height="60"></iframe>
    <iframe src="OTHER/inner" width="300" height="60"></iframe>
    <div id="host"></div>
    <script>
      const root = document.getElementById('host').attachShadow({mode:'open'});
      root.innerHTML = '<button>Shadow button</button><span>text in shadow</span><slot></slot>';
      document.getElementById('host').innerHTML = '<a href="/slotted">Slotted link</a>';
    </script>`);
  h.route('/inner', '<p>In a frame</p><button>Inner button</button>');
  h.route('/hover', `<style>#menu{display:none}#wrap.open #menu{display:block}</style>
    <div id="wrap"><button onclick="document.getElementById('wrap').classList.add('open')">Products</button>
    <ul id="menu"><li><a href="/shoes">Shoes</a></li><li><a href="/hats">Hats</a></li></ul></div>`);
  const rows = Array.from({ length: 2000 }, (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i * 1.5).toFixed(2)}</td><td>${i % 7}</td><td><a href="/i/${i + 1}">Edit</a></td></tr>`).join('');
  h.route('/table', `<h1>Inventory</h1><table><caption>Stock</caption><thead><tr><th>Name</th><th>Price</th><th>Qty</th><th></th></tr></thead><tbody>${rows}</tbody></table>`);
});

t.test('line format: roles, names, refs, states, values; wrappers collapsed', async (t) => {
  const p = await h.open('/form');
  const s = await p.call('snapshot', {});
  t.comment(`\n${s.text}`);
  const text = s.text;
  t.match(text, /^  - heading "Products" \[level=2\]$/m);
  t.match(text, /^\s*- link "Next page" \[ref=e\d+\]$/m);
  t.match(text, /^\s*- textbox "Email" \[ref=e\d+\] value="a@b\.c"$/m);
  t.match(text, /^\s*- checkbox "Remember me" \[ref=e\d+\] \[checked\]$/m);
  t.match(text, /^\s*- button "Buy" \[ref=e\d+\] \[disabled\]$/m);
  t.match(text, /^\s*- combobox "Country" \[ref=e\d+\] value="France"/m);
  t.match(text, /^\s*- textbox "Password" \[ref=e\d+\] \[type=password\] value="••••"$/m, 'a password value is never shown');
  t.notMatch(text, /hunter2/);
  t.match(text, /^\s*- textbox "Note" \[ref=e\d+\] value="line one"$/m);
  t.match(text, /^\s*- button "Custom" \[ref=e\d+\]$/m);
  t.match(text, /^\s*- clickable "Clickable card" \[ref=e\d+\]$/m);
  t.match(text, /^\s*- button "More" \[ref=e\d+\] \[expanded=false\]$/m, 'summary as a button');
  t.notMatch(text, /inside/, 'closed details content');
  t.match(text, /^\s*- text: Some bold words and more words\.$/m, 'inline runs merged, whitespace collapsed');
  t.match(text, /^\s*- img "A pixel"$/m);
  t.match(text, /^- navigation "Main":\n  - list:\n    - link "Home" \[ref=e\d+\]\n    - link "Shop" \[ref=e\d+\]$/m, 'one-child list items print the child; a banner around one landmark prints nothing');
  t.notMatch(text, /- text: Email$/m, 'a label of a shown control is its name, not a text line');
  const long = /- text: (long text.*)$/m.exec(text)![1];
  t.ok(long.length <= 161 && long.endsWith('…'), 'long text cut with …');
  t.notMatch(text, /generic|div|wrap/, 'no line for wrappers');
  t.equal(s.refCount, (text.match(/\[ref=/g) ?? []).length);
  t.same(s.skippedFrames, []);
  t.equal(s.url, `${h.url}/form`);
  await p.close();
});

t.test('blocks stay apart inside landmarks; text is budgeted per block, links always print', async (t) => {
  h.route('/blocks', `<main><p>One <a href="/x">a link</a> end.</p><p>Two</p>
    <p>${'word '.repeat(30)}<a href="/1">first</a>${'more '.repeat(40)}<a href="/2">second</a>${'tail '.repeat(20)}</p></main>`);
  const p = await h.open('/blocks');
  const s = (await p.call('snapshot', {})).text;
  t.match(s, /^  - text: end\. · Two · word/m, 'adjacent text blocks share one line, kept apart by ·');
  const block = s.slice(s.indexOf('· word'));
  t.match(block, /link "first" \[ref=e\d+\]/);
  t.match(block, /link "second" \[ref=e\d+\]/, 'a link after the text budget still prints');
  t.notMatch(block, /tail/, 'text past the budget is left out');
  const textChars = [...('- text: ' + block).matchAll(/- text: (.*)$/gm)].reduce((n, m) => n + m[1].length, 0);
  t.ok(textChars <= 161, `${textChars} characters of text for the block`);
  await p.close();
});

t.test('refs are stable across snapshots; new elements are marked *', async (t) => {
  const p = await h.open('/hover');
  const a = await p.call('snapshot', {});
  t.notMatch(a.text, /Shoes/);
  const ref = /button "Products" \[ref=(e\d+)\]/.exec(a.text)![1];
  const b = await p.call('snapshot', {});
  t.equal(/button "Products" \[ref=(e\d+)\]/.exec(b.text)![1], ref, 'same element, same ref');
  await p.evalMain(`document.getElementById('wrap').classList.add('open')`);
  const c = await p.call('snapshot', { markNewSince: true });
  t.comment(`\n${c.text}`);
  t.match(c.text, /^\s*\*- link "Shoes" \[ref=e\d+\]$/m, 'a revealed element is marked');
  t.match(c.text, /^\s*\*- link "Hats" \[ref=e\d+\]$/m);
  t.match(c.text, /^- button "Products" \[ref=e\d+\]$/m, 'an element that was there is not marked');
  t.equal(/button "Products" \[ref=(e\d+)\]/.exec(c.text)![1], ref);
  const d = await p.call('snapshot', { markNewSince: true });
  t.notMatch(d.text, /\*/, 'nothing new the second time');
  const e = await p.call('snapshot', {});
  t.notMatch(e.text, /\*/, 'no marks unless asked');
  // A re-rendered element is a new element with a new ref.
  await p.evalMain(`const b = document.querySelector('button'); b.replaceWith(b.cloneNode(true))`);
  const f = await p.call('snapshot', {});
  t.not(/button "Products" \[ref=(e\d+)\]/.exec(f.text)![1], ref);
  await p.close();
});

t.test('stale refs: refs of removed elements and of old documents do not resolve', async (t) => {
  const p = await h.open('/hover');
  const s = await p.call('snapshot', {});
  const ref = /button "Products" \[ref=(e\d+)\]/.exec(s.text)![1];
  t.equal((await p.answer('pointFor', ref)).ok, true);
  t.same(await p.answer('elementInfo', 'e999'), { ok: false, code: 'stale_ref', message: 'ref e999 is not in the current page; take a new browser_snapshot' });
  t.equal((await p.fails('elementInfo', 'bogus')).code, 'not_found');
  await p.evalMain(`document.querySelector('button').remove()`);
  const gone = await p.fails('pointFor', ref);
  t.equal(gone.code, 'stale_ref', 'a removed element is stale');
  t.equal(gone.message, `ref ${ref} is not in the current page; take a new browser_snapshot`);
  t.equal((await p.fails('fill', ref, 'x')).code, 'stale_ref');
  t.equal((await p.fails('readText', { ref })).code, 'stale_ref', 'readText of a stale ref fails too, not empty text');
  // A ref from findText lives as long as its element, whatever snapshot comes after (one ref space).
  const found = await p.call('findText', { text: 'Shoes', includeHidden: true });
  const fref = found.matches[0].ref;
  t.equal((await p.call('elementInfo', fref)).tag, 'a');
  await p.call('snapshot', {});
  t.equal((await p.call('elementInfo', fref)).tag, 'a', 'a later snapshot does not make it stale');
  // After navigation the old world is gone; a fresh script knows no refs.
  await p.goto('/hover');
  t.equal((await p.fails('pointFor', ref)).code, 'stale_ref');
  await p.close();
});

t.test('open shadow roots and same-origin frames; cross-origin frames listed', async (t) => {
  h.route('/frames-x', (await (async () => '')()) || '');
  const p = await h.open('/frames');
  // Point the third frame at the other origin now that we know its URL.
  await p.evalMain(`document.querySelectorAll('iframe')[2].src = ${JSON.stringify(`${h.otherUrl}/inner`)}`);
  await new Promise((r) => setTimeout(r, 500));
  const s = await p.call('snapshot', {});
  t.comment(`\n${s.text}`);
  t.match(s.text, /^\s*- button "Inner button" \[ref=f1:e1\]$/m, 'first frame: f1 refs');
  t.match(s.text, /^\s*- text: In a frame$/m);
  t.match(s.text, /^\s*- button "Second frame" \[ref=f2:e1\]$/m, 'srcdoc frame: f2');
  t.match(s.text, /^\s*- button "Shadow button" \[ref=e\d+\]$/m);
  t.match(s.text, /^\s*- text: text in shadow$/m);
  t.match(s.text, /^\s*- link "Slotted link" \[ref=e\d+\]$/m, 'slotted light DOM is shown where the slot is');
  t.match(s.text, new RegExp(`^\\s*- iframe "${h.otherUrl}/inner" \\(cross-origin\\)$`, 'm'));
  t.same(s.skippedFrames, [{ url: `${h.otherUrl}/inner` }]);
  const inner = /button "Inner button" \[ref=(f1:e\d+)\]/.exec(s.text)![1];
  const pt = await p.call('pointFor', inner);
  const hit = await p.evalMain<string>(`(() => { const f = document.elementFromPoint(${pt.x}, ${pt.y}); const r = f.getBoundingClientRect(); return f.tagName + ':' + f.contentDocument.elementFromPoint(${pt.x} - r.left - f.clientLeft, ${pt.y} - r.top - f.clientTop).textContent })()`);
  t.equal(hit, 'IFRAME:Inner button', 'the point is on the button inside the frame');
  t.equal((await p.answer('clickDom', inner)).ok, true);
  const again = await p.call('snapshot', {});
  t.match(again.text, /Inner button" \[ref=f1:e1\]/, 'frame refs stay stable');
  await p.close();
});

t.test('a 2,000-row table stays compact: one line per row', async (t) => {
  const p = await h.open('/table');
  const t0 = Date.now();
  const s = await p.call('snapshot', {});
  const ms = Date.now() - t0;
  const lines = s.text.split('\n');
  t.match(s.text, /^- table "Stock":$/m);
  t.match(s.text, /^  - Name\|Price\|Qty\|$/m);
  t.match(s.text, /^  - Item 1\|0\.00\|0\|Edit \[ref=e\d+\]$/m);
  t.match(s.text, /^  - Item 2000\|2998\.50\|4\|Edit \[ref=e\d+\]$/m, 'every row, every link reachable');
  t.equal(s.refCount, 2000);
  t.equal(lines.length, 2 + 1 + 2000);
  const perRow = s.text.length / 2000;
  t.ok(perRow < 70, `about ${perRow.toFixed(1)} characters per row`);
  t.comment(`2,000-row table snapshot: ${s.text.length} characters, ${lines.length} lines, ${ms} ms`);
  await p.close();
});

t.test('size rules: separators, repeated legends and lone-landmark wrappers print nothing; row links are text and ref', async (t) => {
  h.route('/size', `<header><nav><a href="/a">A</a> <a href="/b">B</a></nav></header>
    <form><fieldset><legend>Plan</legend><label><input type="radio" name="p" checked> Free</label><label><input type="radio" name="p"> Pro</label></fieldset></form>
    <footer>© Shop · <a href="/t">Terms</a> · <a href="/p">Privacy</a>.</footer>
    <table><tr><th>Id</th><th>Name</th><th>Action</th></tr><tr><td><a href="/c/1">C-1</a></td><td>Ann</td><td><button>Delete</button></td></tr></table>`);
  const p = await h.open('/size');
  const s = await p.call('snapshot', {});
  t.comment(`\n${s.text}`);
  t.match(s.text, /^- navigation:\n  - link "A" \[ref=e\d+\]\n  - link "B" \[ref=e\d+\]$/m, 'banner > navigation prints as navigation');
  t.match(s.text, /^- group "Plan":\n  - radio "Free" \[ref=e\d+\] \[checked\]\n  - radio "Pro" \[ref=e\d+\]$/m, 'the legend is the name only');
  t.match(s.text, /^- contentinfo:\n  - text: © Shop\n  - link "Terms" \[ref=e\d+\]\n  - link "Privacy" \[ref=e\d+\]$/m, 'no "·" or "." lines');
  t.match(s.text, /^  - Id\|Name\|Action$/m);
  t.match(s.text, /^  - C-1 \[ref=e\d+\]\|Ann\|button "Delete" \[ref=e\d+\]$/m, 'a link cell is text and ref; other controls keep their role');
  t.equal(s.refCount, 8, 'every control keeps its ref');
  await p.close();
});
