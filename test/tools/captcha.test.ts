/**
 * The CAPTCHA tools against real Chromium: a challenge in a frame from another site (another renderer), cells
 * clicked by image coordinates reaching the fixture server, a drag, an answer typed without Enter or a submit,
 * and every bound tried: replayed and navigated-away captures, control characters, points off the image, a
 * filled field, a read tab, a read-only site, three misses, and the audit keeping the answer's length only.
 */
import t from 'tap';
import { PNG } from 'pngjs';
import { call, type TestDaemon } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { addCaptchaRoutes, CELL, CELL_COLOURS, CHALLENGE, PLACES } from '../fixtures/captcha-site.js';
import type { FixtureSite } from '../fixtures/site.js';
import { captchaState, CAPTURE_TTL_MS } from '../../daemon/captcha/captures.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;

t.before(async () => {
  stack = await startStack();
  ({ d, site } = stack);
  addCaptchaRoutes(site);
});
t.teardown(() => stack.stop());

const pageUrl = () => `${site.url}/captcha/page`;

async function openTab(mode: 'read' | 'act'): Promise<string> {
  const r = await stack.rest('browser_open', { url: pageUrl(), mode });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.tab;
}

async function inspect(tab: string, selector = '#grid', frame = 1) {
  const r = await stack.rest('browser_captcha_inspect', { tab, frame, selector });
  if (r.status !== 200) throw new Error(`inspect failed: ${JSON.stringify(r.json)}`);
  return r.json as { capture: string; image: { width: number; height: number }; images: { data: string }[] };
}

const act = (args: Record<string, unknown>) => stack.rest('browser_captcha_act', args);

/** The centre of cell n (1-9) in image pixels, for an image of the #grid container. */
function cellCentre(n: number, img: { width: number; height: number }) {
  const sx = img.width / (CELL * 3);
  const sy = img.height / (CELL * 3);
  return { x: Math.round((((n - 1) % 3) * CELL + CELL / 2) * sx), y: Math.round((Math.floor((n - 1) / 3) * CELL + CELL / 2) * sy) };
}

const hits = (path: string) => site.requests.filter((r) => r.path.startsWith(path));

t.test('frames: the main frame and the other site\'s frame, names and URLs fenced', async (t) => {
  const tab = await openTab('read');
  const mcp = await call(stack.client, 'browser_captcha_frames', { tab });
  t.notOk(mcp.isError, mcp.text);
  const fence = /<<<page [0-9a-f]+ source="[^"]*">>>\n([\s\S]*?)\n<<<end [0-9a-f]+>>>/.exec(mcp.text);
  t.ok(fence, 'the listing is fenced');
  t.match(fence![1], /^0: name="" url="http:\/\/127\.0\.0\.1:\d+\/captcha\/page"$/m, 'index 0 is the main frame');
  t.match(fence![1], /^1: name="captcha-frame" url="http:\/\/captcha\.test:\d+\/captcha\/frame"$/m, 'index 1 is the cross-site frame, with its name');
  t.notMatch(mcp.text.replace(fence![0], ''), /captcha-frame|captcha\.test/, 'neither name nor URL appears outside the fence');
  const rest = await stack.rest('browser_captcha_frames', { tab });
  t.same(rest.json.frames.map((f: { index: number; name: string }) => [f.index, f.name]), [[0, ''], [1, 'captcha-frame']]);
});

t.test('inspect: an image of just the container, the capture id, and the cells where the page draws them', async (t) => {
  const tab = await openTab('act');
  const cap = await inspect(tab);
  t.match(cap.capture, /^cap_[0-9a-f]{16}$/);
  t.ok(cap.image.width <= 1600 && cap.image.height <= 1600);
  const png = PNG.sync.read(Buffer.from(cap.images[0].data, 'base64'));
  t.equal(png.width, cap.image.width, 'the image is the size the answer says');
  t.equal(png.width, png.height, `the grid is square, so the image is (${png.width}x${png.height})`);
  // Each cell's centre in the image has that cell's colour: the clip is the container, offsets and scroll included.
  for (let n = 1; n <= 9; n++) {
    const { x, y } = cellCentre(n, png);
    const i = (png.width * y + x) * 4;
    const got = [png.data[i], png.data[i + 1], png.data[i + 2]];
    t.ok(got.every((v, k) => Math.abs(v - CELL_COLOURS[n - 1][k]) <= 3), `cell ${n} is drawn at its place (${got} vs ${CELL_COLOURS[n - 1]})`);
  }
  const missing = await stack.rest('browser_captcha_inspect', { tab, frame: 1, selector: '#nothing-here' });
  t.equal(missing.json.error?.code, 'not_found');
  const noFrame = await stack.rest('browser_captcha_inspect', { tab, frame: 7, selector: '#grid' });
  t.equal(noFrame.json.error?.code, 'not_found');
  const bad = await stack.rest('browser_captcha_inspect', { tab, frame: 1, selector: 'div[' });
  t.equal(bad.json.error?.code, 'validation_error');
});

t.test('act: a click by image coordinates reaches the server, a drag too, and a capture works once', async (t) => {
  const tab = await openTab('act');
  const cap = await inspect(tab);
  const before = hits('/clicked').length;
  const r = await act({ capture: cap.capture, action: 'click', ...cellCentre(5, cap.image) });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const clicked = hits('/clicked').slice(before);
  t.same(clicked.map((x) => x.path), ['/clicked?cell=5'], 'cell 5, and only it, was clicked');
  t.equal(clicked[0].headers.host, `captcha.test:${site.port}`, 'from inside the other site\'s frame');
  t.equal(r.json.stillShows, true);
  t.match(r.json.text, /miss 1 of 3/);
  t.notMatch(r.json.text, /solved|passed\b(?! that)/i, 'the result does not claim success');

  const again = await act({ capture: cap.capture, action: 'click', ...cellCentre(1, cap.image) });
  t.equal(again.json.error?.code, 'not_found', 'a used capture is not_found');
  t.equal(hits('/clicked').length, before + 1, 'and the replay clicked nothing');
  const unknown = await act({ capture: 'cap_0123456789abcdef', action: 'click', x: 1, y: 1 });
  t.equal(unknown.json.error?.code, 'not_found');

  // The slider: from the knob's middle 120 px to the right, in image pixels of the #track container.
  const track = await inspect(tab, '#track');
  const s = track.image.width / 300;
  const dragged = hits('/dragged').length;
  const dr = await act({ capture: track.capture, action: 'drag', x: 15 * s, y: 15 * s, endX: 135 * s, endY: 15 * s });
  t.equal(dr.status, 200, JSON.stringify(dr.json));
  const got = hits('/dragged').slice(dragged);
  t.equal(got.length, 1, 'the drag reached the page');
  t.ok(Math.abs(Number(new URL(got[0].path, site.url).searchParams.get('dx')) - 120) <= 2, `it moved the knob 120 px (${got[0].path})`);
});

t.test('bad input changes nothing: control characters, points off the image, a filled field', async (t) => {
  const tab = await openTab('act');
  const cap = await inspect(tab, '#challenge');
  for (const text of ['ab\ncd', 'x\ty', 'ok\r', 'a\u0000b', 'z\u007f']) {
    const r = await act({ capture: cap.capture, action: 'type', ...at(PLACES.answer, cap.image), text });
    t.equal(r.json.error?.code, 'validation_error', `control character in ${JSON.stringify(text)}`);
  }
  t.equal((await act({ capture: cap.capture, action: 'type', ...at(PLACES.answer, cap.image), text: 'x'.repeat(201) })).json.error?.code, 'validation_error', 'over 200 characters');
  t.equal((await act({ capture: cap.capture, action: 'type', ...at(PLACES.answer, cap.image), text: '' })).json.error?.code, 'validation_error', 'empty text');
  const { width, height } = cap.image;
  for (const [x, y] of [[width, 10], [10, height], [width + 50, height + 50]]) {
    const r = await act({ capture: cap.capture, action: 'click', x, y });
    t.equal(r.json.error?.code, 'validation_error', `(${x}, ${y}) is off the ${width}x${height} image`);
  }
  const dragOff = await act({ capture: cap.capture, action: 'drag', x: 5, y: 5, endX: width + 1, endY: 5 });
  t.equal(dragOff.json.error?.code, 'validation_error', 'a drag ending off the image');
  const filled = await act({ capture: cap.capture, action: 'type', ...at(PLACES.filled, cap.image), text: 'more' });
  t.equal(filled.json.error?.code, 'validation_error', `typing into a field that holds text: ${JSON.stringify(filled.json.error)}`);
  const onCell = await act({ capture: cap.capture, action: 'type', ...at(PLACES.cell(5), cap.image), text: 'word' });
  t.equal(onCell.json.error?.code, 'validation_error', 'typing onto a cell (no field)');
  t.equal(hits('/typed').length, 0, 'nothing was typed');
  // After all of that the capture is still good: bad input did not use it up.
  const ok = await act({ capture: cap.capture, action: 'click', ...at(PLACES.cell(6), cap.image) });
  t.equal(ok.status, 200, JSON.stringify(ok.json));
});

/** A place inside #challenge (CSS px) in image pixels of a #challenge capture. */
function at(p: { x: number; y: number }, img: { width: number; height: number }) {
  return { x: Math.round((p.x * img.width) / CHALLENGE.width), y: Math.round((p.y * img.height) / CHALLENGE.height) };
}

t.test('type: the answer goes into the empty field, with no Enter and no submit, and the audit keeps its length only', async (t) => {
  const tab = await openTab('act');
  // Recorded too: the step keeps the text's length, as the audit does.
  const recordingId = (await stack.rest('browser_record', { tab, action: 'start' })).json.id;
  t.ok(recordingId, 'recording');
  const cap = await inspect(tab, '#challenge');
  const answer = 'w7Xk9q';
  const r = await act({ capture: cap.capture, action: 'type', ...at(PLACES.answer, cap.image), text: answer });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const typed = await site.waitFor((x) => x.path.startsWith('/typed'));
  t.equal(new URL(typed.path, site.url).searchParams.get('value'), answer, 'the field holds the answer');
  t.equal(hits('/enter').length, 0, 'Enter was never pressed');
  t.same(site.writes().filter((w) => w.path.startsWith('/answer')), [], 'the form was not submitted');
  t.notMatch(r.json.text, new RegExp(answer), 'the answer is not echoed');

  const entries = d.daemon.env.audit.all(1000).filter((e) => e.tool === 'browser_captcha_act' && (e.args as any)?.action === 'type' && e.outcome === 'ok');
  t.ok(entries.length >= 1, 'the act is audited');
  t.equal((entries[0].args as any).text, `[${answer.length} chars]`, 'by the length of the text alone');
  const everything = JSON.stringify(d.daemon.env.audit.all(100000)) + d.logLines.join('\n');
  t.notOk(everything.includes(answer), 'the text is in no audit entry and no log line');
  await stack.rest('browser_record', { action: 'stop', id: recordingId });
  const got = JSON.stringify((await stack.rest('browser_record', { action: 'get', id: recordingId })).json);
  t.match(got, 'browser_captcha_act', 'the act is a step of the recording');
  t.notOk(got.includes(answer), 'and the recording holds its length, not the text');
});

t.test('a read tab is refused; a read-only site is refused; neither sends anything', async (t) => {
  const readTab = await openTab('read');
  const cap = await inspect(readTab);
  const before = hits('/clicked').length;
  const r = await act({ capture: cap.capture, action: 'click', ...cellCentre(2, cap.image) });
  t.equal(r.json.error?.code, 'refused', JSON.stringify(r.json));

  const env = d.daemon.env;
  const alice = env.users.list().find((u) => u.name === 'alice')!.id;
  for (const pattern of ['captcha.test', '127.0.0.1']) {
    await env.policies.upsert(alice, { pattern, access: 'read_only' });
    try {
      const tab = await openTab('act');
      const c = await inspect(tab);
      const ro = await act({ capture: c.capture, action: 'click', ...cellCentre(2, c.image) });
      t.equal(ro.json.error?.code, 'site_read_only', `${pattern} read-only: ${JSON.stringify(ro.json.error)}`);
      const typed = await act({ capture: c.capture, action: 'type', x: 5, y: 5, text: 'abc' });
      t.equal(typed.json.error?.code, 'site_read_only', `typing too (${pattern})`);
    } finally {
      await env.policies.remove(alice, pattern);
    }
  }
  t.equal(hits('/clicked').length, before, 'no click reached the page');
});

t.test('a capture ends when its frame navigates', async (t) => {
  const tab = await openTab('act');
  const old = await inspect(tab);
  const mover = await inspect(tab);
  // Cell 9 moves the frame to a new document (round 2).
  const r = await act({ capture: mover.capture, action: 'click', ...cellCentre(9, mover.image) });
  t.equal(r.status, 200, JSON.stringify(r.json));
  await site.waitFor((x) => x.path === '/captcha/frame?round=2');
  const stale = await act({ capture: old.capture, action: 'click', ...cellCentre(1, old.image) });
  t.equal(stale.json.error?.code, 'not_found');
  t.match(stale.json.error?.message, /navigated/, 'and it says why');
  // A new capture of the new document works.
  const fresh = await inspect(tab);
  const before = hits('/clicked').length;
  t.equal((await act({ capture: fresh.capture, action: 'click', ...cellCentre(3, fresh.image) })).status, 200);
  t.same(hits('/clicked').slice(before).map((x) => x.path), ['/clicked?cell=3']);
});

t.test('three misses on a page: the third says to hand off, the next is refused, a new page starts again', async (t) => {
  const tab = await openTab('act');
  let last: any;
  for (let i = 1; i <= 3; i++) {
    const cap = await inspect(tab);
    last = await act({ capture: cap.capture, action: 'click', ...cellCentre(i, cap.image) });
    t.equal(last.json.misses, i, `miss ${i}`);
  }
  t.match(last.json.text, /browser_handoff/);
  t.match(last.json.text, /reason: "captcha"/);
  t.same(last.json.handoff, { tool: 'browser_handoff', reason: 'captcha' });
  const fourth = await inspect(tab);
  const before = hits('/clicked').length;
  const refused = await act({ capture: fourth.capture, action: 'click', ...cellCentre(4, fourth.image) });
  t.equal(refused.json.error?.code, 'refused');
  t.match(refused.json.error?.next, /browser_handoff/);
  t.equal(hits('/clicked').length, before, 'nothing was clicked');

  await stack.rest('browser_navigate', { tab, url: pageUrl() });
  const fresh = await inspect(tab);
  const again = await act({ capture: fresh.capture, action: 'click', ...cellCentre(4, fresh.image) });
  t.equal(again.status, 200, JSON.stringify(again.json));
  t.equal(again.json.misses, 1, 'a new page counts from one again');
});

t.test('a capture ends after two minutes, and an act on it says it expired', async (t) => {
  const tab = await openTab('act');
  const cap = await inspect(tab);
  const alice = d.daemon.env.users.list().find((u) => u.name === 'alice')!.id;
  const state = captchaState(d.daemon.env);
  t.equal(state.peek(cap.capture, alice, Date.now() + CAPTURE_TTL_MS - 1000).ok, true, 'still good just before two minutes');
  // Read as the clock will be in two minutes: the capture ends as it would on its timer.
  t.equal(state.peek(cap.capture, alice, Date.now() + CAPTURE_TTL_MS).ok, false);
  t.equal(state.peek(cap.capture, 'someone-else').ok, false, 'another user never sees it');
  const before = hits('/clicked').length;
  const r = await act({ capture: cap.capture, action: 'click', ...cellCentre(1, cap.image) });
  t.equal(r.json.error?.code, 'not_found');
  t.match(r.json.error?.message, /expired/);
  t.equal(hits('/clicked').length, before, 'nothing was clicked');
});
