/**
 * The policy gate is a step of the call pipeline, not something each tool remembers: every way of putting
 * input into a page meets the same gate. Each case tries a path that used to slip past it (typing where
 * filling was refused, a key press, a whole form, a drop, a file) and checks the page and the server saw
 * nothing. Plus the dispatch edges: names that are Object.prototype keys, arguments nested too deep, typing
 * that must be bounded and must stop when its caller gives up.
 */
import t from 'tap';
import { startTestDaemon, call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

const CARD = '4111111111111111';
let d: TestDaemon;
let site: FixtureSite;
let alice: string;
let bob: string;

t.before(async () => {
  site = await startSite();
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  await d.daemon.env.users.update('bob', { approvals: true });
  site.route('/pay', html(`<h1>Checkout</h1><form method="post" action="/charge">
    <label>Card number <input name="cardnumber" autocomplete="cc-number"></label>
    <label>Expiry month <select name="exp" autocomplete="cc-exp-month"><option value="">--</option><option>01</option><option>02</option></select></label>
    <label>Receipt <input type="file" name="receipt"></label>
    <button type="submit">Pay now</button></form>
    <div id="chip" draggable="true" style="width:60px;height:30px;background:#ccc">chip</div>
    <form action="/search"><label>Search <input name="q"></label></form>`, '', 'Checkout'));
  site.route('/typing', html(`<label>Notes <input id="notes" onkeydown="if(this.value.length===3)fetch('/typing-started')"></label>`));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

const errorCode = (text: string) => /^Error \[([a-z_]+)\]/m.exec(text)?.[1];

async function openPay(token: string, mode: 'read' | 'act') {
  const c = await d.mcp(token);
  const open = await call(c, 'browser_open', { url: `http://a.test:${site.port}/pay`, mode });
  const tab = /\b(t\d+)\b/.exec(open.text)![1];
  const snap = (await call(c, 'browser_snapshot', { tab })).text;
  return { c, tab, snap };
}

async function cardValue(c: Awaited<ReturnType<typeof d.mcp>>, tab: string) {
  const line = (await call(c, 'browser_snapshot', { tab })).text.split('\n').find((l) => /textbox "Card number"/.test(l)) ?? '';
  return /value="([^"]*)"/.exec(line)?.[1] ?? '';
}

t.test('a read-only site: typing a card number is refused like filling it, by ref or into the focused field', async (t) => {
  await d.daemon.env.policies.upsert('alice', { pattern: 'a.test', access: 'read_only' });
  t.teardown(() => d.daemon.env.policies.remove('alice', 'a.test'));
  const { c, tab, snap } = await openPay(alice, 'act');
  const card = refOf(snap, /textbox "Card number"/);

  const fill = await call(c, 'browser_fill', { tab, ref: card, value: CARD });
  t.equal(errorCode(fill.text), 'site_read_only', 'fill is refused (as before)');
  const typed = await call(c, 'browser_type', { tab, ref: card, text: CARD });
  t.equal(errorCode(typed.text), 'site_read_only', `type by ref is refused too: ${typed.text}`);
  const slowly = await call(c, 'browser_type', { tab, ref: card, text: CARD, slowly: true });
  t.equal(errorCode(slowly.text), 'site_read_only', 'key by key is no way around it');

  // Focus the field with a click (harmless on its own), then type with no ref: the focused field is judged.
  const focus = await call(c, 'browser_click', { tab, ref: card });
  t.notOk(focus.isError, focus.text);
  const intoFocus = await call(c, 'browser_type', { tab, text: CARD });
  t.equal(errorCode(intoFocus.text), 'site_read_only', `type into the focused card field is refused: ${intoFocus.text}`);
  const digit = await call(c, 'browser_press', { tab, key: '4' });
  t.equal(errorCode(digit.text), 'site_read_only', 'a digit pressed into it is typing too');
  const paste = await call(c, 'browser_press', { tab, key: 'Control+V' });
  t.equal(errorCode(paste.text), 'site_read_only', 'so is a chord');
  const enter = await call(c, 'browser_press', { tab, key: 'Enter' });
  t.equal(errorCode(enter.text), 'site_read_only', 'Enter submits');
  const back = await call(c, 'browser_press', { tab, key: 'Shift+Tab' });
  t.notOk(back.isError, `moving focus away from the card field is not typing: ${back.text}`);
  t.equal(await cardValue(c, tab), '', 'the card field is still empty');

  const search = refOf(snap, /textbox "Search"/);
  const reading = await call(c, 'browser_type', { tab, ref: search, text: 'shipping' });
  t.notOk(reading.isError, `typing a search on a read-only site still works: ${reading.text}`);
  const tabKey = await call(c, 'browser_press', { tab, key: 'Tab' });
  t.notOk(tabKey.isError, `moving focus still works: ${tabKey.text}`);
  t.same(site.writes(), [], 'the server saw nothing');

  const audit = d.daemon.env.audit.all(200).filter((e) => e.user === 'alice' && e.tool === 'browser_type');
  t.ok(audit.some((e) => e.outcome === 'site_read_only' && e.tab === tab), 'the refused type is in the audit log');
});

t.test('a read-only site: fill_form, select_options, upload and a drop on "Pay now" meet the same gate', async (t) => {
  const { c, tab, snap } = await openPay(alice, 'act');
  const at = await call(c, 'browser_evaluate', { tab, js: `JSON.stringify((r => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 }))([...document.querySelectorAll('button')].find(b => b.textContent === 'Pay now').getBoundingClientRect()))` });
  const payAt = JSON.parse(/\{"x":[^}]*\}/.exec(at.text)![0]);
  await d.daemon.env.policies.upsert('alice', { pattern: 'a.test', access: 'read_only' });
  t.teardown(() => d.daemon.env.policies.remove('alice', 'a.test'));
  const card = refOf(snap, /textbox "Card number"/);
  const search = refOf(snap, /textbox "Search"/);

  const form = await call(c, 'browser_fill_form', { tab, fields: { [search]: 'harmless', [card]: CARD } });
  t.equal(errorCode(form.text), 'site_read_only', `fill_form is refused: ${form.text}`);
  t.notMatch((await call(c, 'browser_snapshot', { tab })).text, /harmless/, 'and refused whole: not even the harmless field was filled');

  const select = await call(c, 'browser_select_options', { tab, ref: refOf(snap, /combobox "Expiry month"/), values: ['01'] });
  t.equal(errorCode(select.text), 'site_read_only', `select_options of a card field is refused: ${select.text}`);

  const upload = await call(c, 'browser_upload', { tab, ref: refOf(snap, /button "Receipt"/), name: 'receipt.txt', base64: Buffer.from('hello').toString('base64') });
  t.equal(errorCode(upload.text), 'site_read_only', `upload is refused: ${upload.text}`);

  const drag = await call(c, 'browser_drag', { tab, fromX: 20, fromY: 250, toRef: refOf(snap, /button "Pay now"/) });
  t.equal(errorCode(drag.text), 'site_read_only', `a drop on "Pay now" is refused: ${drag.text}`);

  const point = await call(c, 'browser_click', { tab, x: payAt.x, y: payAt.y });
  t.equal(errorCode(point.text), 'site_read_only', `a click at "Pay now"'s point is refused (what is there cannot be judged): ${point.text}`);
  const dropAt = await call(c, 'browser_drag', { tab, fromX: 20, fromY: 250, toX: payAt.x, toY: payAt.y });
  t.equal(errorCode(dropAt.text), 'site_read_only', 'so is a drop there');

  const dom = await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/), mode: 'dom' });
  t.equal(errorCode(dom.text), 'site_read_only', 'dom click');
  const js = await call(c, 'browser_evaluate', { tab, js: 'document.forms[0].submit()' });
  t.equal(errorCode(js.text), 'site_read_only', 'evaluate');

  const after = (await call(c, 'browser_snapshot', { tab })).text;
  t.notMatch(after, /receipt\.txt/, 'no file was put into the input');
  t.match(after, /combobox "Expiry month"[^\n]*value="--"/, 'the month is still unselected');
  t.same(site.writes(), [], 'the server saw nothing');
});

t.test('a click at a point is judged by what lies there: "Pay now" is refused in a read tab and needs approval for bob', async (t) => {
  const pointOf = async (c: Awaited<ReturnType<typeof d.mcp>>, tab: string, js: string) => {
    const at = await call(c, 'browser_evaluate', { tab, js: `JSON.stringify((r => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 }))(${js}.getBoundingClientRect()))` });
    return JSON.parse(/\{"x":[^}]*\}/.exec(at.text)![0]) as { x: number; y: number };
  };
  const payButton = `[...document.querySelectorAll('button')].find(b => b.textContent === 'Pay now')`;

  const read = await openPay(alice, 'read');
  const pay = await pointOf(read.c, read.tab, payButton);
  const refused = await call(read.c, 'browser_click', { tab: read.tab, x: pay.x, y: pay.y });
  t.equal(errorCode(refused.text), 'refused', `read tab, click at "Pay now": ${refused.text}`);
  t.match(refused.text, /payment/);
  const chip = await pointOf(read.c, read.tab, `document.getElementById('chip')`);
  const harmless = await call(read.c, 'browser_click', { tab: read.tab, x: chip.x, y: chip.y });
  t.notOk(harmless.isError, `a click on a harmless box still works: ${harmless.text}`);

  const asked = await openPay(bob, 'act');
  // Bob's evaluate would itself need approval: the same page in the same viewport puts "Pay now" where it was.
  const approval = await call(asked.c, 'browser_click', { tab: asked.tab, x: pay.x, y: pay.y });
  t.match(approval.text, /needsApproval|needs approval/i, `approvals on: ${approval.text}`);
  t.same(site.writes(), [], 'the server saw nothing');
});

t.test('a read tab: typing a card number is refused as a sensitive action, as filling is', async (t) => {
  const { c, tab, snap } = await openPay(alice, 'read');
  const card = refOf(snap, /textbox "Card number"/);
  const typed = await call(c, 'browser_type', { tab, ref: card, text: CARD });
  t.equal(errorCode(typed.text), 'refused', typed.text);
  t.match(typed.text, /payment.*read tab/);
  t.equal(await cardValue(c, tab), '');
});

t.test('approvals on: typing a card number answers needsApproval and types nothing', async (t) => {
  const { c, tab, snap } = await openPay(bob, 'act');
  const card = refOf(snap, /textbox "Card number"/);
  const typed = await call(c, 'browser_type', { tab, ref: card, text: CARD });
  t.notOk(typed.isError, typed.text);
  t.match(typed.text, /needsApproval/);
  t.match(typed.text, /payment/);
  t.equal(await cardValue(c, tab), '', 'nothing was typed');
  const audit = d.daemon.env.audit.all(200).filter((e) => e.user === 'bob' && e.tool === 'browser_type');
  t.ok(audit.some((e) => e.outcome === 'needs_approval'), 'audited as needs_approval');
});

t.test('tool names that are Object.prototype keys are unknown tools, over MCP and REST', async (t) => {
  const c = await d.mcp(alice);
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const r: any = await call(c, name, {}).catch((e) => e);
    t.equal(r.code, -32602, `${name} over MCP: invalid params`);
    t.match(r.message, /unknown tool/);
    if (!/^[a-z_]+$/.test(name)) continue; // REST tool routes are lower case: others are no route at all
    const viaRest = await d.rest(alice, 'POST', `/v1/tools/${name}`, {});
    t.equal(viaRest.json?.error?.code, 'validation_error', `${name} over REST: ${JSON.stringify(viaRest.json)}`);
  }
});

t.test('arguments nested 10,000 deep are a validation_error, and are audited without being walked', async (t) => {
  const depth = 10000;
  const body = '{"tab":"t1","x":'.concat('{"a":'.repeat(depth), '1', '}'.repeat(depth), '}');
  const res = await fetch(`${d.url}/v1/tools/browser_snapshot`, { method: 'POST', headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' }, body });
  const json: any = await res.json();
  t.equal(json.error?.code, 'validation_error', JSON.stringify(json).slice(0, 300));
  t.match(json.error.message, /nested (deeper|more) than/);

  // Over MCP, a body the HTTP layer still parses (it refuses beyond 64 levels) but deeper than dispatch walks.
  const c = await d.mcp(alice);
  let deep: any = 1;
  for (let i = 0; i < 40; i++) deep = { a: deep };
  const r = await call(c, 'browser_click', { x: deep });
  t.equal(errorCode(r.text), 'validation_error', r.text);
  const entry = d.daemon.env.audit.all(200).find((e) => e.user === 'alice' && e.tool === 'browser_click' && e.outcome === 'validation_error');
  t.ok(entry, 'the refusal is audited');
  t.ok(JSON.stringify(entry!.args).length < 200, 'with a note instead of the arguments');
});

t.test('browser_type slowly: bounded, and it stops when the caller gives up', async (t) => {
  const c = await d.mcp(alice);
  const open = await call(c, 'browser_open', { url: `http://a.test:${site.port}/typing`, mode: 'act' });
  const tab = /\b(t\d+)\b/.exec(open.text)![1];
  const notes = refOf((await call(c, 'browser_snapshot', { tab })).text, /textbox "Notes"/);

  const huge = await call(c, 'browser_type', { tab, ref: notes, text: 'x'.repeat(100000), slowly: true });
  t.equal(errorCode(huge.text), 'validation_error', huge.text.slice(0, 300));

  const text = 'y'.repeat(5000);
  const abort = new AbortController();
  const started = site.waitFor((r) => r.path.startsWith('/typing-started'), 60000).then(() => abort.abort());
  const typing = c.callTool({ name: 'browser_type', arguments: { tab, ref: notes, text, slowly: true } }, undefined, { signal: abort.signal, timeout: 600000 });
  await t.rejects(typing, 'the caller gave up');
  await started;
  // The tab's lock is held until the typing loop ends, so this read comes after it: it must have stopped early.
  const value = await d.rest(alice, 'POST', '/v1/tools/browser_evaluate', { tab, js: 'document.getElementById("notes").value.length' });
  t.equal(value.status, 200, JSON.stringify(value.json));
  const typed = Number(/(\d+)\s*<<<end [0-9a-f]{12}>>>/.exec(value.json.text)?.[1]);
  t.ok(typed >= 3 && typed < text.length, `typing stopped after ${typed} of ${text.length} characters`);
});
