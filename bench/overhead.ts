/**
 * Tool-call overhead: browser_snapshot and browser_click through /mcp (MCP SDK client, Streamable HTTP) vs the
 * same page work as raw CDP calls from one script on a Chromium started with the daemon's own launcher.
 *   raw snapshot: Runtime.evaluate of __browserd.snapshot({}) (the same injected script) in an isolated world;
 *   raw click:    Input.dispatchMouseEvent mousePressed + mouseReleased at the button's centre.
 * Both sides click the same counter button; the counters are read back to check every click landed.
 * The peer, Playwright MCP, does the same snapshot and click on the same page, called with the same MCP SDK client.
 */
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { launchRawBrowser, median, p90, ms, now, printTable, mcpText, startPlaywrightMcp } from './lib.js';
import { callTool } from '../daemon/tools/dispatch.js';

const N = 100;
/**
 * Calls before the measured ones, on every side: a daemon serves for days, so its code is measured warm (V8 has
 * optimised the call path after a couple of hundred calls; with 5, the first side measured carried the JIT's
 * cost, a few milliseconds a call).
 */
const WARMUP = 200;
/** Playwright MCP's clicks, which take ~0.5 s each: warm-up and measured runs. */
const PW_CLICK_WARMUP = 10;
const PW_CLICKS = 30;


export async function run(): Promise<void> {
  const site = await startBenchSite();
  const url = site.url('/counter');
  const rows: string[][] = [];
  const notes: string[] = [];
  try {
    // ---------------------------------------------------------------- raw CDP
    const raw = await launchRawBrowser();
    const rawSnap: number[] = [];
    const rawClick: number[] = [];
    const rawRefClick: number[] = [];
    let rawCount = -1;
    try {
      const p = await raw.newPage();
      await raw.navigate(p, url);
      const snapExpr = `__browserd.snapshot({}).value`;
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const s = await raw.evalInWorld<{ text: string }>(p, snapExpr);
        const dt = now() - t0;
        if (!s.text.includes('Add one')) throw new Error('raw snapshot does not show the button');
        if (i >= WARMUP) rawSnap.push(dt);
      }
      const c = await raw.evalInWorld<{ x: number; y: number }>(p, `(() => { const r = document.querySelector('#add').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`);
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        await raw.conn.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: c.x, y: c.y, button: 'left', clickCount: 1 }, p.sessionId);
        await raw.conn.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: c.x, y: c.y, button: 'left', clickCount: 1 }, p.sessionId);
        const dt = now() - t0;
        if (i >= WARMUP) rawClick.push(dt);
      }
      // The page work browser_click itself must do, as raw CDP calls with the same injected script: find the
      // element's point (box, visibility, covered check), move+press+release sent together, then one round
      // trip so events the click caused have arrived. What the daemon adds is the rest.
      const rawRef = /button "Add one" \[ref=(e\d+)\]/.exec((await raw.evalInWorld<{ text: string }>(p, snapExpr)).text)?.[1];
      if (!rawRef) throw new Error('no ref for the counter button in the raw snapshot');
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const pt = await raw.evalInWorld<{ x: number; y: number }>(p, `__browserd.pointFor(${JSON.stringify(rawRef)}).value`);
        const moved = raw.conn.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: pt.x, y: pt.y }, p.sessionId);
        const pressed = raw.conn.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: pt.x, y: pt.y, button: 'left', clickCount: 1 }, p.sessionId);
        await raw.conn.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: pt.x, y: pt.y, button: 'left', clickCount: 1 }, p.sessionId);
        await Promise.all([moved, pressed]);
        await raw.conn.send('Runtime.evaluate', { expression: '0' }, p.sessionId);
        const dt = now() - t0;
        if (i >= WARMUP) rawRefClick.push(dt);
      }
      rawCount = Number((await raw.evalInWorld<string>(p, `document.getElementById('n').textContent`)).split(' ')[1]);
    } finally {
      await raw.close();
    }

    // ---------------------------------------------------------------- through the daemon (MCP)
    const d = await startTestDaemon();
    const mcpSnap: number[] = [];
    const mcpClick: number[] = [];
    let mcpCount = -1;
    const mcpTabs: number[] = [];
    const restSnap: number[] = [];
    const auditOnly: number[] = [];
    const directClick: number[] = [];
    let directCount = -1;
    try {
      const token = await d.addUser('bench');
      const client = await d.mcp(token);
      const open = await client.callTool({ name: 'browser_open', arguments: { url, mode: 'act' } });
      if (open.isError) throw new Error(`browser_open failed: ${mcpText(open)}`);
      const tab = /Opened tab (\S+)/.exec(mcpText(open))?.[1] ?? 't1';
      let ref = '';
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await client.callTool({ name: 'browser_snapshot', arguments: { tab } });
        const dt = now() - t0;
        const text = mcpText(r);
        if (r.isError) throw new Error(`browser_snapshot failed: ${text}`);
        ref = /button "Add one" \[ref=(e\d+)\]/.exec(text)?.[1] ?? ref;
        if (i >= WARMUP) mcpSnap.push(dt);
      }
      if (!ref) throw new Error('no ref for the counter button in our snapshot');
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await client.callTool({ name: 'browser_click', arguments: { tab, ref } });
        const dt = now() - t0;
        if (r.isError) throw new Error(`browser_click failed: ${mcpText(r)}`);
        if (i >= WARMUP) mcpClick.push(dt);
      }
      const snap = mcpText(await client.callTool({ name: 'browser_snapshot', arguments: { tab } }));
      mcpCount = Number(/count (\d+)/.exec(snap)?.[1] ?? -1);
      // Where the overhead lives: a call with no page work (transport + dispatch + audit), the same snapshot
      // over REST (no MCP framing), and the durable audit append every call awaits before it answers.
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await client.callTool({ name: 'browser_tabs', arguments: {} });
        const dt = now() - t0;
        if (r.isError) throw new Error(`browser_tabs failed: ${mcpText(r)}`);
        if (i >= WARMUP) mcpTabs.push(dt);
      }
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await d.rest(token, 'POST', '/v1/tools/browser_snapshot', { tab });
        const dt = now() - t0;
        if (r.status !== 200) throw new Error(`REST browser_snapshot: ${r.status} ${JSON.stringify(r.json)}`);
        if (i >= WARMUP) restSnap.push(dt);
      }
      // The same click straight into dispatch (gate, lock, page work, audit) without the MCP transport.
      const user = d.daemon.env.users.get('bench')!;
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await callTool(d.daemon.pipeline, user, 'browser_click', { tab, ref }, { via: 'internal' });
        const dt = now() - t0;
        if (!r.ok) throw new Error(`in-process browser_click failed: ${r.error.message}`);
        if (i >= WARMUP) directClick.push(dt);
      }
      const after = mcpText(await client.callTool({ name: 'browser_snapshot', arguments: { tab } }));
      directCount = Number(/count (\d+)/.exec(after)?.[1] ?? -1) - mcpCount;
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        await d.daemon.env.audit.append({ at: new Date().toISOString(), user: 'bench', tool: 'bench_audit_probe', via: 'internal', args: {}, outcome: 'ok', ms: 0 });
        const dt = now() - t0;
        if (i >= WARMUP) auditOnly.push(dt);
      }
    } finally {
      await d.stop();
    }

    // ---------------------------------------------------------------- the peer: Playwright MCP (stdio, same client SDK)
    const pwSnap: number[] = [];
    const pwClick: number[] = [];
    let pwCount = -1;
    const pw = await startPlaywrightMcp();
    try {
      const nav = await pw.client.callTool({ name: 'browser_navigate', arguments: { url } });
      if (nav.isError) throw new Error(`Playwright MCP browser_navigate failed: ${mcpText(nav)}`);
      let target = '';
      for (let i = 0; i < WARMUP + N; i++) {
        const t0 = now();
        const r = await pw.client.callTool({ name: 'browser_snapshot', arguments: {} });
        const dt = now() - t0;
        target = /button "Add one" \[ref=(\w+)\]/.exec(mcpText(r))?.[1] ?? target;
        if (i >= WARMUP) pwSnap.push(dt);
      }
      if (!target) throw new Error('no ref for the counter button in Playwright MCP snapshot');
      // Its click waits about half a second for the page to settle, far above any JIT warm-up cost: fewer runs do.
      for (let i = 0; i < PW_CLICK_WARMUP + PW_CLICKS; i++) {
        const t0 = now();
        const r = await pw.client.callTool({ name: 'browser_click', arguments: { element: 'Add one button', target, ref: target } });
        const dt = now() - t0;
        if (r.isError) throw new Error(`Playwright MCP browser_click failed: ${mcpText(r)}`);
        if (i >= PW_CLICK_WARMUP) pwClick.push(dt);
      }
      pwCount = Number(/count (\d+)/.exec(mcpText(await pw.client.callTool({ name: 'browser_snapshot', arguments: {} })))?.[1] ?? -1);
    } finally {
      await pw.close();
    }

    const row = (name: string, viaDaemon: number[], viaRaw: number[]) =>
      rows.push([name, ms(median(viaDaemon)), ms(p90(viaDaemon)), ms(median(viaRaw)), ms(p90(viaRaw)), ms(median(viaDaemon) - median(viaRaw))]);
    row('browser_snapshot via MCP', mcpSnap, rawSnap);
    row('browser_click via MCP', mcpClick, rawClick);
    row('browser_snapshot via REST', restSnap, rawSnap);
    row('browser_click in-process (dispatch, no transport)', directClick, rawClick);
    row('browser_click via MCP vs raw CDP doing its page work', mcpClick, rawRefClick);
    row('browser_click in-process vs raw CDP doing its page work', directClick, rawRefClick);
    row('Playwright MCP browser_snapshot (stdio)', pwSnap, rawSnap);
    row('Playwright MCP browser_click (stdio)', pwClick, rawClick);
    rows.push(['browser_tabs via MCP (no page work)', ms(median(mcpTabs)), ms(p90(mcpTabs)), '—', '—', ms(median(mcpTabs))]);
    rows.push(['audit append alone (awaits LMDB flushed)', ms(median(auditOnly)), ms(p90(auditOnly)), '—', '—', ms(median(auditOnly))]);
    notes.push(`N=${N} calls each after ${WARMUP} warm-up calls; one MCP session, one tab; goal: median overhead under 5 ms per call.`);
    notes.push(`clicks that landed: MCP ${mcpCount} of ${WARMUP + N}, raw ${rawCount} of ${2 * (WARMUP + N)} (counter read back from the page).`);
    notes.push(
      '"raw CDP doing its page work": the injected pointFor of the ref (box, visibility, covered check), move+press+release sent',
      '  together, one round trip after; the bare raw click is press and release at a point known in advance.',
    );
    notes.push(
      'A raw click is two mouse events. browser_click also asks the page for the element (the sensitive-action gate) and its point',
      '  (covered/disabled check) in one round trip, sends move, press and release together, makes one round trip after the click to',
      '  learn whether it started a navigation, and writes its audit entry durably before it answers.',
      `clicks that landed in-process: ${directCount} of ${WARMUP + N}; through Playwright MCP: ${pwCount} of ${PW_CLICK_WARMUP + PW_CLICKS} (N=${PW_CLICKS} after ${PW_CLICK_WARMUP}).`,
      'Playwright MCP runs as a stdio server (no HTTP); both sides are called with the same MCP SDK client.',
    );
  } finally {
    await site.close();
  }
  printTable(
    'Tool-call overhead: through /mcp vs raw CDP (same Chromium switches, same injected script)',
    ['call', 'daemon median', 'daemon p90', 'raw median', 'raw p90', 'overhead (median)'],
    rows,
    notes,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
