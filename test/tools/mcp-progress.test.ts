/**
 * Progress over MCP: a client that gives a progressToken hears how far a long call has come while it runs
 * (notifications/progress on the call's own stream, with its own JSON-RPC id on the answer); a client that
 * gives none gets one plain JSON answer, as before.
 */
import t from 'tap';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { html } from '../fixtures/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';

let s: Stack;
let release: () => void = () => undefined;
const released = new Promise<void>((r) => (release = r));
t.before(async () => {
  s = await startStack();
  for (const n of [1, 2, 3]) s.site.route(`/p${n}`, html(`<h1>Page ${n}</h1><p>Words on page ${n}.</p>`));
  // The text comes when the test lets it: the page's request for /release is answered only then.
  s.site.route('/late', html('<p id="x">soon</p><script>fetch("/release").then(() => { document.getElementById("x").textContent = "arrived" })</script>'));
  s.site.route('/release', (_req, res) => void released.then(() => res.end('ok')));
});
t.teardown(() => s.stop());

async function callWithProgress(name: string, args: Record<string, unknown>, onReport?: (p: Progress) => void) {
  const seen: Progress[] = [];
  const result = await s.client.callTool({ name, arguments: args }, CallToolResultSchema, { onprogress: (p) => (seen.push(p), onReport?.(p)), timeout: 30_000 });
  return { result, seen };
}

t.test('browser_read of several addresses reports each page read, ending at all of them', async (t) => {
  const urls = [1, 2, 3].map((n) => `${s.site.url}/p${n}`);
  const { result, seen } = await callWithProgress('browser_read', { urls });
  t.notOk(result.isError);
  t.ok(seen.length >= 1, 'at least one report');
  t.same(seen.at(-1), { progress: 3, total: 3, message: 'pages read' }, 'the last report is all pages of all');
  for (let i = 1; i < seen.length; i++) t.ok(seen[i].progress > seen[i - 1].progress, 'progress only grows');
});

t.test('browser_wait reports the seconds it has waited while the page is not there yet', async (t) => {
  const opened = await s.client.callTool({ name: 'browser_open', arguments: { url: `${s.site.url}/late`, live: 'none' } });
  t.notOk(opened.isError);
  // The page's text is let through once the client has heard that two seconds went by.
  const { result, seen } = await callWithProgress('browser_wait', { text: 'arrived', timeoutMs: 10_000 }, (p) => p.progress >= 2 && release());
  t.notOk(result.isError, 'the text arrived');
  t.ok(seen.length >= 2, `reports while waiting (${seen.length})`);
  t.ok(seen.every((p) => p.total === 10 && p.message === 'seconds waited'));
  t.ok(seen.some((p) => p.progress >= 2), 'it counted past two seconds');
});

t.test('browser_wait for a time reports each second of it', async (t) => {
  const { result, seen } = await callWithProgress('browser_wait', { timeMs: 2600 });
  t.notOk(result.isError);
  // Reports come on a one-second timer: a busy machine may run one late, after the wait has ended.
  t.ok(seen.length >= 1 && seen.length <= 2, `one report a second (${seen.length})`);
  t.ok(seen.every((p, i) => p.total === 3 && p.progress === i + 1), 'seconds waited, counting up');
});

/** A raw POST to the MCP endpoint in the client's session. */
async function post(body: unknown) {
  const transport = (s.client as any)._transport;
  return fetch(`${s.d.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': transport.sessionId,
      'Mcp-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
}

t.test('without a progressToken the answer is one JSON object with the client\'s own id', async (t) => {
  const res = await post({ jsonrpc: '2.0', id: 'mine-1', method: 'tools/call', params: { name: 'browser_wait', arguments: { timeMs: 1200 } } });
  t.match(res.headers.get('content-type'), /^application\/json/);
  const json = await res.json();
  t.equal(json.id, 'mine-1');
  t.match(json.result.content[0].text, /Waited 1200 ms/);
});

t.test('with a progressToken the answer is a stream: progress first, then the answer, all under the client\'s ids', async (t) => {
  // Two calls in flight under the same client id: each stream carries its own answer back under that id.
  const [a, b] = await Promise.all([
    post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_wait', arguments: { timeMs: 1500 }, _meta: { progressToken: 'a' } } }),
    post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_wait', arguments: { timeMs: 2500 }, _meta: { progressToken: 'b' } } }),
  ]);
  for (const [res, token, ms, ticks] of [[a, 'a', 1500, 1], [b, 'b', 2500, 2]] as const) {
    t.match(res.headers.get('content-type'), /^text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter((e) => e.includes('data:')).map((e) => JSON.parse(e.slice(e.indexOf('data:') + 5)));
    const progress = events.filter((e) => e.method === 'notifications/progress');
    t.ok(progress.length >= 1 && progress.length <= ticks, `${token}: one report a second (${progress.length})`);
    t.ok(progress.every((p) => p.params.progressToken === token), `${token}: its own token`);
    const answer = events.at(-1);
    t.equal(answer.id, 7, 'the client\'s id, not ours');
    t.match(answer.result.content[0].text, new RegExp(`Waited ${ms} ms`));
  }
});

t.test('a batch with no progressToken is answered as one JSON array', async (t) => {
  const res = await post([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_status', arguments: {} } },
  ]);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const json = await res.json();
  t.ok(Array.isArray(json));
  t.same(json.map((m: any) => m.id).sort(), [1, 2]);
});

t.test('a plain call the client cancels ends at once in the daemon, and the session goes on', async (t) => {
  const abort = new AbortController();
  const started = Date.now();
  const waiting = s.client.callTool({ name: 'browser_wait', arguments: { timeMs: 20_000 } }, undefined, { signal: abort.signal, timeout: 30_000 });
  setTimeout(() => abort.abort(), 300);
  await t.rejects(waiting, 'the client gave up');
  // The daemon ended the wait too: its audit entry is written when the call ends, long before 20 s.
  const until = Date.now() + 5000;
  let entry: any;
  while (!entry && Date.now() < until) {
    const audit = await s.d.rest(s.token, 'GET', '/v1/audit?limit=5');
    // The only browser_wait of this file that does not end ok is the cancelled one.
    entry = audit.json.entries?.find((e: any) => e.tool === 'browser_wait' && e.outcome !== 'ok' && Date.parse(e.at) >= started - 1000);
    if (!entry) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(entry, 'the cancelled call is on the record');
  t.ok(entry.ms < 5000, `it ended after ${entry?.ms} ms, not 20 s`);
  t.equal(entry.outcome, 'timeout', 'as a cancelled call');
  const next = await s.client.callTool({ name: 'browser_status', arguments: {} });
  t.notOk(next.isError, 'the session serves the next call');
});
