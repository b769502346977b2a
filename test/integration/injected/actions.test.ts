/** pointFor, clickDom, focus, fill, selectOptions, elementInfo, rectFor, scrollState: checked against page state. */
import t from 'tap';
import { startHarness, type Harness } from './harness.js';

let h: Harness;

const refOf = (snapshot: string, re: RegExp): string => {
  for (const line of snapshot.split('\n')) if (re.test(line)) return /\[ref=((?:f\d+:)?e\d+)\]/.exec(line)![1];
  throw new Error(`no ref for ${re} in\n${snapshot}`);
};

t.before(async () => {
  h = await startHarness(t);
  h.route('/covered', `
    <button id="b" onclick="document.getElementById('out').textContent='button was clicked'">Press me</button>
    <p id="out">not clicked</p>
    <button id="free">Free</button>
    <button disabled>Cannot</button>
    <button aria-disabled="true">Aria cannot</button>
    <div id="overlay" class="modal dark" style="position:fixed;left:0;top:0;width:300px;height:60px;background:rgba(0,0,0,.5)">Accept cookies</div>
    <div style="height:2000px"></div>
    <button id="far" onclick="this.textContent='far clicked'">Far below</button>
    <label class="fancy"><input type="checkbox" id="cb" style="opacity:0;position:absolute"><span>Styled box</span></label>`);
  h.route('/form', `
    <form id="f" action="/pay" method="post">
      <h1>Checkout</h1>
      <label>Name <input name="name" autocomplete="name"></label>
      <label>Card number <input name="cc" autocomplete="cc-number"></label>
      <label>Country <select name="country"><option value="fr">France</option><option value="de">Germany</option><option value="it">Italy</option></select></label>
      <label><input type="checkbox" name="news"> Newsletter</label>
      <label><input type="radio" name="ship" value="std" checked> Standard</label>
      <label><input type="radio" name="ship" value="exp"> Express</label>
      <label>Date <input type="date" name="when"></label>
      <label>Toppings <select name="top" multiple><option>Ham</option><option>Olives</option><option>Cheese</option></select></label>
      <div contenteditable="true" aria-label="Notes" id="notes">old note</div>
      <input name="ro" readonly value="fixed" aria-label="Fixed">
      <input type="file" aria-label="Upload">
      <button type="submit">Pay now</button>
    </form>
    <p id="log"></p>
    <script>
      const log = [];
      for (const el of document.querySelectorAll('input,select,[contenteditable]')) {
        el.addEventListener('input', () => log.push('input:' + (el.name || el.id)));
        el.addEventListener('change', () => log.push('change:' + (el.name || el.id)));
      }
      window.__log = log;
      // A framework-style value tracker: it sees a change only through events.
      let seen = '';
      document.querySelector('[name=name]').addEventListener('input', (e) => { seen = e.target.value; });
      window.__seen = () => seen;
      // React's value tracker: an own 'value' property on the node records every value set through it, and
      // onChange fires only when an input event finds the node's real value different from the recorded one.
      const card = document.querySelector('[name=cc]');
      const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
      let tracked = card.value;
      Object.defineProperty(card, 'value', { configurable: true, get() { return native.get.call(this); }, set(v) { tracked = String(v); native.set.call(this, v); } });
      card.addEventListener('input', () => { if (card.value !== tracked) { tracked = card.value; window.__reactOnChange = card.value; } });
    </script>`);
  h.route('/scroll', `<div id="box" style="height:100px;overflow:auto"><div style="height:1000px"><span id="in">inside</span></div></div><div style="height:3000px">tall</div>`);
});

t.test('pointFor: a point on the element; refused as covered, disabled, not_visible otherwise', async (t) => {
  const p = await h.open('/covered');
  const s = (await p.call('snapshot', {})).text;
  const free = await p.call('pointFor', refOf(s, /button "Free"/));
  t.equal(await p.evalMain(`document.elementFromPoint(${free.x}, ${free.y}).id`), 'free');
  const covered = await p.fails('pointFor', refOf(s, /button "Press me"/));
  t.equal(covered.code, 'refused');
  t.equal(covered.details?.reason, 'covered');
  t.equal(covered.details?.coveredBy, 'div#overlay.modal.dark "Accept cookies"');
  t.notMatch(covered.message, /overlay|Accept/, 'page text stays out of the message (it travels in details)');
  t.same((await p.fails('pointFor', refOf(s, /button "Cannot"/))).details, { reason: 'disabled' });
  t.same((await p.fails('pointFor', refOf(s, /button "Aria cannot"/))).details, { reason: 'disabled' });
  await p.evalMain(`document.getElementById('free').style.visibility = 'hidden'`);
  t.same((await p.fails('pointFor', refOf(s, /button "Free"/))).details, { reason: 'not_visible' });
  const stale = await p.fails('pointFor', 'e999');
  t.equal(stale.code, 'stale_ref');
  t.equal((await p.fails('pointFor', 'not-a-ref')).code, 'not_found');
  // Below the fold: scrolled into view, then pointed at.
  const far = await p.call('pointFor', refOf(s, /button "Far below"/));
  t.ok((await p.evalMain<number>('scrollY')) > 1000, 'scrolled');
  t.equal(await p.evalMain(`document.elementFromPoint(${far.x}, ${far.y}).id`), 'far');
  // A hidden native checkbox styled through its label: point at the label.
  t.match(s, /checkbox "Styled box" \[ref=e\d+\]/, 'the hidden checkbox is in the snapshot through its label');
  const cb = await p.answer('pointFor', refOf(s, /checkbox "Styled box"/));
  t.ok(cb.ok, JSON.stringify(cb));
  await p.close();
});

t.test('clickDom clicks a covered element; focus', async (t) => {
  const p = await h.open('/covered');
  const s = (await p.call('snapshot', {})).text;
  const ref = refOf(s, /button "Press me"/);
  t.same(await p.answer('clickDom', ref), { ok: true });
  t.equal(await p.evalMain(`document.getElementById('out').textContent`), 'button was clicked');
  const dis = await p.fails('clickDom', refOf(s, /button "Cannot"/));
  t.equal(dis.code, 'refused');
  t.equal(dis.details?.reason, 'disabled');
  t.same(await p.answer('focus', refOf(s, /button "Free"/)), { ok: true });
  t.equal(await p.evalMain('document.activeElement.id'), 'free');
  await p.close();
});

t.test('fill: text, select, checkbox, radio, date, contenteditable change the page state', async (t) => {
  const p = await h.open('/form');
  const s = (await p.call('snapshot', {})).text;
  t.comment(`\n${s}`);
  t.same(await p.call('fill', refOf(s, /textbox "Name"/), 'Ada Lovelace'), { kind: 'text' });
  t.equal(await p.evalMain(`document.querySelector('[name=name]').value`), 'Ada Lovelace');
  t.equal(await p.evalMain('__seen()'), 'Ada Lovelace', 'page listeners saw the input event');
  t.same(await p.call('fill', refOf(s, /textbox "Card number"/), '4111 1111'), { kind: 'text' });
  t.equal(await p.evalMain('window.__reactOnChange'), '4111 1111', 'a React-style value tracker sees the change');
  t.same(await p.call('fill', refOf(s, /combobox "Country"/), 'germany'), { kind: 'select' }, 'option by visible text, any case');
  t.equal(await p.evalMain(`document.querySelector('[name=country]').value`), 'de');
  t.same(await p.call('fill', refOf(s, /combobox "Country"/), 'it'), { kind: 'select' }, 'option by value');
  t.equal(await p.evalMain(`document.querySelector('[name=country]').value`), 'it');
  const bad = await p.fails('fill', refOf(s, /combobox "Country"/), 'Atlantis');
  t.equal(bad.code, 'validation_error');
  t.equal(bad.details?.reason, 'no_option');
  t.same(bad.details?.options, ['France', 'Germany', 'Italy']);
  t.same(await p.call('fill', refOf(s, /checkbox "Newsletter"/), 'true'), { kind: 'checkbox' });
  t.equal(await p.evalMain(`document.querySelector('[name=news]').checked`), true);
  t.same(await p.call('fill', refOf(s, /checkbox "Newsletter"/), 'false'), { kind: 'checkbox' });
  t.equal(await p.evalMain(`document.querySelector('[name=news]').checked`), false);
  t.equal((await p.fails('fill', refOf(s, /checkbox "Newsletter"/), 'maybe')).code, 'validation_error');
  t.same(await p.call('fill', refOf(s, /radio "Express"/), 'true'), { kind: 'radio' });
  t.equal(await p.evalMain(`document.querySelector('[name=ship]:checked').value`), 'exp');
  t.same(await p.call('fill', refOf(s, /textbox "Date"/), '2024-02-29'), { kind: 'text' });
  const badDate = await p.fails('fill', refOf(s, /textbox "Date"/), '29/02/2024');
  t.equal(badDate.code, 'validation_error');
  t.equal(badDate.details?.reason, 'bad_value');
  t.match(badDate.message, /YYYY-MM-DD/);
  t.same(await p.call('fill', refOf(s, /textbox "Notes"/), 'new note'), { kind: 'contenteditable' });
  t.equal(await p.evalMain(`document.getElementById('notes').textContent`), 'new note');
  t.same(await p.fails('fill', refOf(s, /textbox "Fixed"/), 'x'), { ok: false, code: 'refused', message: `ref ${refOf(s, /textbox "Fixed"/)} is read-only`, details: { reason: 'readonly' } });
  t.equal((await p.fails('fill', refOf(s, /button "Upload"/), 'x')).details?.reason, 'not_fillable');
  const log = await p.evalMain<string[]>('__log');
  t.ok(log.includes('input:name') && log.includes('change:name'), 'input and change fired');
  t.ok(log.includes('change:country') && log.includes('change:news'));
  const after = (await p.call('snapshot', {})).text;
  t.match(after, /textbox "Name" \[ref=e\d+\] value="Ada Lovelace"/);
  t.match(after, /combobox "Country" \[ref=e\d+\] value="Italy"/);
  t.match(after, /radio "Express" \[ref=e\d+\] \[checked\]/);
  await p.close();
});

t.test('selectOptions on a multiple select', async (t) => {
  const p = await h.open('/form');
  const s = (await p.call('snapshot', {})).text;
  const ref = refOf(s, /listbox "Toppings"/);
  const r = await p.call('selectOptions', ref, ['ham', 'Cheese']);
  t.same(r, { kind: 'select', selected: ['Ham', 'Cheese'] });
  t.same(await p.evalMain(`[...document.querySelector('[name=top]').selectedOptions].map(o => o.text)`), ['Ham', 'Cheese']);
  t.equal((await p.fails('selectOptions', refOf(s, /combobox "Country"/), ['France', 'Italy'])).details?.reason, 'bad_value', 'one value for a single select');
  t.equal((await p.fails('selectOptions', ref, ['Pineapple'])).details?.reason, 'no_option');
  await p.close();
});

t.test('elementInfo: the form, its fields and the page headings for the classifier', async (t) => {
  const p = await h.open('/form');
  const s = (await p.call('snapshot', {})).text;
  const info = await p.call('elementInfo', refOf(s, /button "Pay now"/));
  t.equal(info.tag, 'button');
  t.equal(info.role, 'button');
  t.equal(info.name, 'Pay now');
  t.equal(info.type, 'submit');
  t.equal(info.formAction, `${h.url}/pay`);
  t.equal(info.formMethod, 'post');
  t.same(info.headings, ['Checkout']);
  t.equal(info.disabled, false);
  t.equal(info.isEditable, false);
  const cc = info.formFields.find((f) => f.name === 'cc')!;
  t.same(cc, { name: 'cc', type: 'text', autocomplete: 'cc-number', label: 'Card number' });
  t.ok(info.formFields.some((f) => f.name === 'country' && f.type === 'select-one' && f.label === 'Country'));
  const name = await p.call('elementInfo', refOf(s, /textbox "Name"/));
  t.equal(name.isEditable, true);
  await p.evalMain('document.activeElement && document.activeElement.blur()');
  t.equal((await p.fails('focusedInfo')).code, 'not_found', 'nothing focused');
  await p.call('focus', refOf(s, /textbox "Name"/));
  const focused = await p.call('focusedInfo');
  t.equal(focused.name, 'Name');
  await p.close();
});

t.test('rectFor and scrollState', async (t) => {
  const p = await h.open('/scroll');
  const q = await p.call('query', { css: '#in' });
  const ref = q.matches[0].ref;
  const st = await p.call('scrollState', ref);
  t.same(st, { x: 0, y: 0, maxX: 0, maxY: 900 }, 'the scroll container around the element');
  const page = await p.call('scrollState');
  t.equal(page.maxY, 3100 + 16 - 800, 'the page');
  const r = await p.call('rectFor', ref);
  t.ok(r.width > 0 && r.height > 0);
  t.equal(await p.evalMain(`Math.round(document.getElementById('in').getBoundingClientRect().top + scrollY)`), Math.round(r.y));
  await p.close();
});
