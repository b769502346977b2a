/**
 * Every tool works on a tab that is not in front, by id, and leaves the front where it was: screenshots,
 * scrolling, dragging and clicks by coordinates wait for the page to draw a frame, which a background tab did
 * not (each of them ran to the CDP timeout). Each tab now has a window of its own and emulates focus, so it
 * keeps drawing behind the front one; on a busy host, focus emulation alone still let screenshots hang.
 */
import t from 'tap';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let stack: Stack;

t.before(async () => {
  stack = await startStack();
  stack.site.route('/board', html(`
    <style>body{margin:0;height:5000px} #box{position:absolute;left:10px;top:10px;width:60px;height:60px;background:#c00}
      #hit{position:absolute;left:200px;top:10px;width:100px;height:60px}</style>
    <div id="box"></div><button id="hit" onclick="document.getElementById('log').textContent += ' clicked'">Hit</button>
    <p id="log" style="margin-top:120px">log:</p>
    <script>
      const box = document.getElementById('box');
      let from = null;
      box.addEventListener('pointerdown', (e) => { from = [e.clientX, e.clientY]; box.setPointerCapture(e.pointerId); });
      box.addEventListener('pointerup', (e) => { if (from) document.getElementById('log').textContent += ' dragged:' + Math.round(e.clientX - from[0]); from = null; });
    </script>`, '', 'Board'));
  stack.site.route('/front', html('<h1>The page a person watches</h1>', '', 'Front'));
  stack.site.route('/opener', html('<a id="pop" href="/front?popup" target="_blank">Open the front page</a><p id="log">log:</p>', '', 'Opener'));
});
t.teardown(() => stack.stop());

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1];

async function evaluate(tab: string, js: string) {
  const r = await stack.rest('browser_evaluate', { tab, js });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return JSON.stringify(r.json);
}

t.test('screenshot, scroll, drag and click by x/y on a background tab; the front tab stays in front', async (t) => {
  const back = tabId((await call(stack.client, 'browser_open', { url: `${stack.site.url}/board`, mode: 'act' })).text);
  tabId((await call(stack.client, 'browser_open', { url: `${stack.site.url}/front`, mode: 'act' })).text);
  // Whatever brings a tab to the front goes through one of these commands: none may be sent from here on.
  const conn = stack.d.daemon.env.pool.peek('alice')!.conn!;
  const raised: string[] = [];
  const send = conn.send.bind(conn);
  conn.send = ((method: string, ...rest: unknown[]) => {
    if (method === 'Target.activateTarget' || method === 'Page.bringToFront') raised.push(method);
    return (send as any)(method, ...rest);
  }) as typeof conn.send;
  t.teardown(() => {
    conn.send = send;
  });

  const shot = await call(stack.client, 'browser_screenshot', { tab: back });
  t.notOk(shot.isError, shot.text);
  t.ok(shot.raw.content.some((c: any) => c.type === 'image' && c.data.length > 100), 'a screenshot of the background tab');

  const click = await call(stack.client, 'browser_click', { tab: back, x: 250, y: 40 });
  t.notOk(click.isError, click.text);
  t.match(await evaluate(back, "document.getElementById('log').textContent"), /clicked/, 'the click by x/y landed');

  const drag = await call(stack.client, 'browser_drag', { tab: back, fromX: 40, fromY: 40, toX: 140, toY: 40 });
  t.notOk(drag.isError, drag.text);
  t.match(await evaluate(back, "document.getElementById('log').textContent"), /dragged:100/, 'the drag moved 100 px');

  const scroll = await call(stack.client, 'browser_scroll', { tab: back, amount: 700 });
  t.notOk(scroll.isError, scroll.text);
  t.match(await evaluate(back, 'String(scrollY)'), /700/, 'the page scrolled');

  t.same(raised, [], 'no tab was brought to the front');
});

t.test('a tab whose popup came up in front of it still answers', async (t) => {
  const opener = tabId((await call(stack.client, 'browser_open', { url: `${stack.site.url}/opener`, mode: 'act' })).text);
  const before = stack.d.daemon.env.tabs.list('alice').length;
  const popupLoaded = stack.site.waitFor((r) => r.path === '/front?popup');
  const clicked = await call(stack.client, 'browser_click', { tab: opener, x: 60, y: 15 });
  t.notOk(clicked.isError, clicked.text);
  await popupLoaded;
  t.equal(stack.d.daemon.env.tabs.list('alice').length, before + 1, 'the popup is a tab of its own');

  const shot = await call(stack.client, 'browser_screenshot', { tab: opener });
  t.notOk(shot.isError, shot.text);
  t.ok(shot.raw.content.some((c: any) => c.type === 'image' && c.data.length > 100), 'a screenshot of the opener behind its popup');
  const scroll = await call(stack.client, 'browser_scroll', { tab: opener, amount: 100 });
  t.notOk(scroll.isError, scroll.text);
});
