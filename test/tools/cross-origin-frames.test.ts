/**
 * A frame of another site (out of process under site isolation) is part of the page an agent sees and works:
 * its text and controls are in the snapshot with `fK:eN` refs, clicks, fills and typing reach it, and
 * find_text, query, read_text and read include its text inside the page-text fence, with its hidden text left
 * out. A read tab still keeps a form in that frame from posting.
 */
import t from 'tap';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { canaryOutsideFences } from '../fixtures/fences.js';

let stack: Stack;
let frameOrigin: string;
let other: FixtureSite;

t.before(async () => {
  stack = await startStack();
  other = await startSite();
  const { site } = stack;
  // Cross-site (another host name mapped to loopback), so Chromium puts the frame in a process of its own.
  frameOrigin = `http://xframe.test:${site.port}`;
  // Another port of the same site: cross-origin, but in the page's own process (no session of its own).
  other.route('/same-site', html('<p>Other port words XPORTCANARY</p><div onclick="fetch(\'/port-clicked\')" style="cursor:pointer">Port tile</div>'));
  other.route('/port-clicked', (_req, res) => res.end('ok'));
  site.route('/ports', html(`<h1>Ports</h1><iframe src="${other.url}/same-site" width="500" height="200"></iframe>`));
  // The page lays a box of its own over the frame: a click meant for the frame's button would land on it.
  site.route('/covered', html(`<iframe src="${frameOrigin}/inner" width="600" height="320" style="border:0"></iframe>
    <div onclick="fetch('/overlay-clicked')" style="position:absolute;left:0;top:0;width:700px;height:400px;background:rgba(255,255,255,0.01)">Overlay</div>`));
  site.route('/overlay-clicked', (_req, res) => res.end('ok'));
  site.route('/moving', html(`<button onclick="document.querySelector('iframe').src='http://yframe.test:${site.port}/deep'">Move frame</button>
    <iframe src="${frameOrigin}/inner" width="600" height="320"></iframe>`));
  // A frame of a third site inside the cross-site frame.
  site.route('/nested', html(`<h1>Nested</h1><iframe src="${frameOrigin}/middle" width="600" height="400"></iframe>`));
  site.route('/middle', html(`<p>Middle words</p><button>Middle button</button><iframe src="http://yframe.test:${site.port}/deep" width="500" height="200"></iframe>`));
  site.route('/deep', html('<p>Deep words XDEEPCANARY</p><button onclick="fetch(\'/deep-clicked\')">Deep button</button>'));
  site.route('/deep-clicked', (_req, res) => res.end('ok'));
  site.route('/outer', html(`<h1>Outer page</h1>
    <iframe id="pay" title="Embedded" src="${frameOrigin}/inner" width="600" height="320" style="margin-top:40px;border:4px solid #000"></iframe>
    <p>After the frame</p>`));
  site.route('/inner', html(`<p>Frame words XFRAMECANARY here</p>
    <p style="display:none">XFRAMEHIDDEN display none</p>
    <span style="position:absolute;left:-9999px">XFRAMEHIDDEN off screen</span>
    <button id="b" onclick="fetch('/frame-clicked'); this.textContent='Clicked'">Frame button</button>
    <button onclick="fetch('/frame-post', { method: 'POST', body: 'q=more' })">Show more</button>
    <input type="file" aria-label="Frame file" onchange="fetch('/frame-file?name=' + this.files[0].name)">
    <form method="post" action="/frame-post"><input name="q" aria-label="Frame field"><button type="submit">Send it</button></form>`));
  site.route('/frame-clicked', (_req, res) => res.end('ok'));
  site.route('/frame-file', (_req, res) => res.end('ok'));
  site.route('/frame-post', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html('<p>posted</p>'));
  });
});
t.teardown(async () => {
  await stack.stop();
  await other.close();
});

async function open(mode: 'act' | 'read', path = '/outer'): Promise<string> {
  const r = await call(stack.client, 'browser_open', { url: `${stack.site.url}${path}`, mode });
  t.notOk(r.isError, r.text);
  return /Opened tab (t\d+)/.exec(r.text)![1]!;
}

async function snapshot(tab: string): Promise<string> {
  const s = await call(stack.client, 'browser_snapshot', { tab });
  if (s.isError) throw new Error(s.text);
  return s.text;
}

t.test('the frame is out of process, and its text and controls are in the snapshot with fK:eN refs', async (t) => {
  const tab = await open('act');
  const inst = stack.d.daemon.env.pool.peek('alice')!;
  const { targetInfos } = await inst.conn!.send('Target.getTargets', {});
  t.ok(targetInfos.some((i) => i.type === 'iframe' && i.url.startsWith(frameOrigin)), 'the frame is a target of its own (an OOPIF)');
  const snap = await snapshot(tab);
  t.match(snap, /iframe "http:\/\/xframe\.test:\d+\/inner":/, 'the iframe line (named by its address) holds the frame');
  t.match(snap, /XFRAMECANARY/, 'the frame\'s text');
  t.match(snap, /button "Frame button" \[ref=f\d+:e\d+\]/, 'the frame\'s button, with a frame ref');
  t.match(snap, /textbox "Frame field" \[ref=f\d+:e\d+\]/);
  t.notMatch(snap, /cross-origin/, 'not left out as unreadable');
  t.notMatch(snap, /XFRAMEHIDDEN/, 'hidden text inside the frame is left out');
  t.same(canaryOutsideFences(snap, 'XFRAMECANARY').outside, [], 'the frame\'s text is inside the page-text fence');
  const frameLine = snap.split('\n').findIndex((l) => /iframe "http/.test(l));
  const buttonLine = snap.split('\n').findIndex((l) => /Frame button/.test(l));
  t.ok(buttonLine > frameLine && /^\s+/.exec(snap.split('\n')[buttonLine])![0].length > /^\s*/.exec(snap.split('\n')[frameLine])![0].length, 'the frame\'s lines sit under the iframe line');
});

t.test('click, fill and type reach elements in the frame', async (t) => {
  const tab = await open('act');
  let snap = await snapshot(tab);
  const clicked = stack.site.waitFor((r) => r.path === '/frame-clicked');
  const c = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Frame button"/) });
  t.notOk(c.isError, c.text);
  await clicked;
  snap = await snapshot(tab);
  t.match(snap, /button "Clicked"/, 'the frame\'s own page saw a real click');

  const field = refOf(snap, /textbox "Frame field"/);
  const f = await call(stack.client, 'browser_fill', { tab, ref: field, value: 'filled-value' });
  t.notOk(f.isError, f.text);
  snap = await snapshot(tab);
  t.match(snap, /textbox "Frame field" \[ref=f\d+:e\d+\] value="filled-value"/);

  const ty = await call(stack.client, 'browser_type', { tab, ref: refOf(snap, /textbox "Frame field"/), text: 'typed', clear: true });
  t.notOk(ty.isError, ty.text);
  snap = await snapshot(tab);
  t.match(snap, /textbox "Frame field" \[ref=f\d+:e\d+\] value="typed"/, 'typing lands in the frame\'s field');

  const picked = stack.site.waitFor((r) => r.path.startsWith('/frame-file'));
  const up = await call(stack.client, 'browser_upload', { tab, ref: refOf(snap, /Frame file/), name: 'note.txt', base64: Buffer.from('hi').toString('base64') });
  t.notOk(up.isError, up.text);
  t.match((await picked).path, /name=note\.txt/, 'an upload reaches a file input in the frame');

  const posted = stack.site.waitFor((r) => r.path === '/frame-post' && r.method === 'POST');
  const s = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Send it"/) });
  t.notOk(s.isError, s.text);
  t.match((await posted).body, /q=typed/, 'an act tab submits the frame\'s form');
});

t.test('find_text, query, read_text and read include the frame\'s text, fenced, hidden text out', async (t) => {
  const tab = await open('act');
  const found = await call(stack.client, 'browser_find_text', { tab, text: 'XFRAMECANARY' });
  t.notOk(found.isError, found.text);
  t.match(found.text, /f\d+:e\d+/, 'a match in the frame, with a frame ref');
  t.same(canaryOutsideFences(found.text, 'XFRAMECANARY').outside, []);
  const hidden = await call(stack.client, 'browser_find_text', { tab, text: 'XFRAMEHIDDEN' });
  t.notMatch(hidden.text, /f\d+:e\d+/, 'hidden frame text is not found');

  const q = await call(stack.client, 'browser_query', { tab, css: 'button' });
  t.notOk(q.isError, q.text);
  t.match(q.text, /Frame button/, 'query matches in the frame');
  const ref = /(f\d+:e\d+)/.exec(q.text.split('\n').find((l) => /Frame button/.test(l)) ?? q.text)?.[1];
  t.ok(ref, 'with a frame ref');

  const rt = await call(stack.client, 'browser_read_text', { tab });
  t.match(rt.text, /Outer page[\s\S]*XFRAMECANARY[\s\S]*After the frame/, 'the frame\'s text in reading order');
  t.notMatch(rt.text, /XFRAMEHIDDEN/);
  t.same(canaryOutsideFences(rt.text, 'XFRAMECANARY').outside, []);

  const rd = await call(stack.client, 'browser_read', { tab });
  t.notOk(rd.isError, rd.text);
  t.match(rd.text, /XFRAMECANARY/, 'read (Markdown) includes the frame');
  t.notMatch(rd.text, /XFRAMEHIDDEN/);
  t.same(canaryOutsideFences(rd.text, 'XFRAMECANARY').outside, []);
});

t.test('a read tab still keeps the frame\'s form from posting', async (t) => {
  const tab = await open('read');
  const snap = await snapshot(tab);
  const before = stack.site.writes().length;
  const send = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Send it"/) });
  t.ok(send.isError, 'the submit button of the frame\'s form is a sensitive click, refused in a read tab');
  t.match(send.text, /refused/);
  // A button the classifier lets through: the write guard of the frame's own session stops its POST.
  const c = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Show more"/) });
  t.notOk(c.isError, c.text);
  // The click's answer lists the writes refused while it ran (the network ring may record the failure later).
  t.match(c.text, /Blocked in t\d+ \(read tab\): POST/, 'the frame\'s POST was tried and blocked');
  t.match(c.text, /frame-post/, 'naming its address (fenced)');
  t.equal(stack.site.writes().length, before, 'the POST never reached the site');
});

t.test('a cross-origin frame in the page\'s own process (another port) is read and clicked the same way', async (t) => {
  const tab = await open('act', '/ports');
  const snap = await snapshot(tab);
  t.match(snap, /XPORTCANARY/);
  const clicked = other.waitFor((r) => r.path === '/port-clicked');
  const c = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /Port tile/) });
  t.notOk(c.isError, c.text);
  await clicked;
  t.pass('the click reached the frame\'s element (a div made clickable by its listener)');
});

t.test('a frame of a third site inside the cross-site frame gets its own frame number and takes clicks', async (t) => {
  const tab = await open('act', '/nested');
  const snap = await snapshot(tab);
  t.match(snap, /Middle words[\s\S]*XDEEPCANARY/);
  const ref = refOf(snap, /button "Deep button"/);
  t.not(ref.split(':')[0], refOf(snap, /button "Middle button"/).split(':')[0], 'not the middle frame\'s number');
  const clicked = stack.site.waitFor((r) => r.path === '/deep-clicked');
  const c = await call(stack.client, 'browser_click', { tab, ref });
  t.notOk(c.isError, c.text);
  await clicked;
  const found = await call(stack.client, 'browser_find_text', { tab, text: 'XDEEPCANARY' });
  t.match(found.text, new RegExp(ref.split(':')[0] + ':e'), 'find_text names it with the same frame number');
});

t.test('a click on a frame ref is refused when the page covers the frame there (it would land on the cover)', async (t) => {
  const tab = await open('act', '/covered');
  const snap = await snapshot(tab);
  const c = await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Frame button"/) });
  t.ok(c.isError, 'refused');
  t.match(c.text, /covered/);
  t.notOk(stack.site.requests.some((r) => r.path === '/overlay-clicked'), 'the cover took no click');
});

t.test('a frame that loads another site takes its old refs with it', async (t) => {
  const tab = await open('act', '/moving');
  let snap = await snapshot(tab);
  const old = refOf(snap, /button "Frame button"/);
  const moved = stack.site.waitFor((r) => r.path === '/deep');
  t.notOk((await call(stack.client, 'browser_click', { tab, ref: refOf(snap, /button "Move frame"/) })).isError);
  await moved;
  await call(stack.client, 'browser_wait', { tab, text: 'XDEEPCANARY' });
  snap = await snapshot(tab);
  t.match(snap, /XDEEPCANARY/, 'the new page of the frame is shown');
  const before = stack.site.requests.filter((r) => r.path === '/deep-clicked').length;
  const c = await call(stack.client, 'browser_click', { tab, ref: old });
  t.ok(c.isError, 'the old ref does not act on the new page (its e1 is the new page\'s first button)');
  t.match(c.text, /stale_ref/);
  const f = await call(stack.client, 'browser_fill', { tab, ref: old, value: 'x' });
  t.match(f.text, /stale_ref/, 'nor does a fill');
  t.equal(stack.site.requests.filter((r) => r.path === '/deep-clicked').length, before, 'nothing in the new page was clicked');
  t.match(refOf(snap, /button "Deep button"/), /^f\d+:e1$/);
  t.not(refOf(snap, /button "Deep button"/), old, 'the new page\'s button has a ref of its own');
});
