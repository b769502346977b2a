/**
 * Only a read page's main world runs script, and what escapes it still reads:
 * - a shared or service worker made from an isolated world of a read tab (the in-page guard removes
 *   SharedWorker and navigator.serviceWorker from the main world only) runs under read rules: no POST reaches
 *   the fixture's counting listener, while the same worker from an act tab's world POSTs (the control);
 * - a timed CDP session may not make or use a world other than the main one in a read tab or on a read-only
 *   site (Page.createIsolatedWorld, a new-document script with a worldName, and Runtime.evaluate,
 *   Runtime.callFunctionOn, Runtime.compileScript and DOM.resolveNode naming another context or its objects),
 *   all of which it may do in an act tab on an ordinary site; so no RTCPeerConnection is made from such a world.
 */
import t from 'tap';
import CDP from 'chrome-remote-interface';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';

let roOrigin: string;

let stack: Stack;
const reports = new Map<string, (r: string) => void>();

// The worker's script: a POST to /sink, then a GET to /report saying whether the POST went out.
const workerScript = (tag: string) => `
  fetch('/sink?tag=${tag}', { method: 'POST', body: 'from a worker ${tag}' })
    .then(() => 'sent', () => 'refused')
    .then((r) => fetch('/report?id=${tag}&r=' + r));
`;

t.before(async () => {
  stack = await startStack();
  roOrigin = `http://ro.test:${stack.site.port}`;
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
  stack.site.route('/plain', html('<h1>Plain</h1>'));
  stack.site.route('/sink', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  stack.site.route('/report', (req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    reports.get(q.get('id') ?? '')?.(q.get('r') ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  stack.site.route('/worker.js', (req, res) => {
    const tag = new URL(req.url ?? '', 'http://x').searchParams.get('tag') ?? '';
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(workerScript(tag));
  });
});
t.teardown(() => stack.stop());

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1];

function expectReport(id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${id} never reported back`)), 20000);
    reports.set(id, (r) => {
      clearTimeout(timer);
      reports.delete(id);
      resolve(r);
    });
  });
}

async function open(url: string, mode: 'read' | 'act'): Promise<string> {
  const r = await call(stack.client, 'browser_open', { url, mode, visible: false });
  if (r.isError) throw new Error(r.text);
  return tabId(r.text);
}

const postsFor = (tag: string) => stack.site.requests.filter((r) => r.method !== 'GET' && r.path.includes(`tag=${tag}`));

async function cdpSession() {
  const r = await call(stack.client, 'browser_sessions', { action: 'start', minutes: 5 });
  if (r.isError) throw new Error(r.text);
  const id = /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1];
  const url = /Connect a CDP client to: (\S+)/.exec(r.text)![1];
  const client = await CDP({ target: url, local: true });
  return {
    client,
    async stop() {
      await client.close().catch(() => undefined);
      await call(stack.client, 'browser_sessions', { action: 'stop', id });
    },
  };
}

/**
 * Runs an expression in a fresh isolated world of a daemon tab's page. A CDP session client may no longer make
 * one in a read tab (read-worlds.ts in the proxy refuses it): the world is made over the daemon's own
 * connection instead, standing for any way script might yet run outside a read page's main world.
 */
async function inIsolatedWorld(tab: string, expression: string): Promise<string> {
  const inst = stack.d.daemon.env.pool.peek('alice')!;
  const sessionId = inst.tabs.get(tab)!.sessionId;
  const conn = inst.conn!;
  const tree: any = await conn.send('Page.getFrameTree', {}, sessionId);
  const world: any = await conn.send('Page.createIsolatedWorld', { frameId: tree.frameTree.frame.id, worldName: 'probe' }, sessionId);
  const r: any = await conn.send('Runtime.evaluate', { expression, contextId: world.executionContextId, awaitPromise: true, returnByValue: true }, sessionId);
  return String(r.result?.value ?? r.exceptionDetails?.text);
}

const sharedWorker = (tag: string) => `(() => { try { new SharedWorker('/worker.js?tag=${tag}'); return 'made'; } catch (e) { return 'throw ' + e.name; } })()`;
const serviceWorker = (tag: string) => `navigator.serviceWorker.register('/worker.js?tag=${tag}', { scope: '/sw-${tag}/' }).then(() => 'made', (e) => 'throw ' + e.name)`;

for (const [kind, make] of [['shared worker', sharedWorker], ['service worker', serviceWorker]] as const) {
  t.test(`a ${kind} made from a read tab's isolated world sends no POST`, async (t) => {
    const slug = kind.split(' ')[0];
    const control = await open(`${stack.site.url}/plain`, 'act');
    const controlReport = expectReport(`${slug}-control`);
    t.equal(await inIsolatedWorld(control, make(`${slug}-control`)), 'made', 'the act tab\'s isolated world makes the worker');
    t.equal(await controlReport, 'sent', 'the route is real: the act tab\'s worker POSTs');
    t.equal(postsFor(`${slug}-control`).length, 1, 'and the server saw that POST');
    await call(stack.client, 'browser_close_tab', { tab: control });
    for (let i = 0; i < 3; i++) {
      const tag = `${slug}-read-${i}`;
      const read = await open(`${stack.site.url}/plain?i=${i}`, 'read');
      const reported = expectReport(tag);
      const made = await inIsolatedWorld(read, make(tag));
      // Made or not, the worker must not write: when it runs it says so with its GET.
      if (made === 'made') t.equal(await reported, 'refused', `read tab ${i}: the ${kind}'s POST was refused`);
      else reports.delete(tag);
      t.same(postsFor(tag), [], `read tab ${i}: no POST from the ${kind} reached the server`);
      await call(stack.client, 'browser_close_tab', { tab: read });
    }
  });
}

/** Every way into another world of a tab's page, through a real CDP session: what each answered. */
async function otherWorlds(client: CDP.Client, tab: string): Promise<Record<string, string>> {
  const targetId = stack.d.daemon.env.pool.peek('alice')!.tabs.get(tab)!.targetId;
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  const out: Record<string, string> = {};
  const tryit = async (name: string, method: string, params: object): Promise<any> => {
    try {
      const r: any = await client.send(method as any, params as any, sessionId);
      out[name] = r?.exceptionDetails ? `exception ${r.exceptionDetails.text}` : 'ok';
      return r;
    } catch (e: any) {
      out[name] = `refused: ${e?.response?.message ?? e?.message ?? e}`;
      return undefined;
    }
  };
  try {
    const contexts: any[] = [];
    const onContext = (p: any, s?: string) => {
      if (s === sessionId) contexts.push(p.context);
    };
    client.on('Runtime.executionContextCreated', onContext);
    await client.send('Runtime.enable', undefined, sessionId);
    const tree: any = await client.send('Page.getFrameTree', undefined, sessionId);
    const frameId = tree.frameTree.frame.id;
    const world = await tryit('createIsolatedWorld', 'Page.createIsolatedWorld', { frameId, worldName: 'probe' });
    await tryit('newDocumentWorld', 'Page.addScriptToEvaluateOnNewDocument', { source: '1', worldName: 'probe2' });
    // The daemon's own utility world (or the probe world) is announced once Runtime is on.
    const other = contexts.find((c) => c.auxData?.isDefault === false);
    const main = contexts.find((c) => c.auxData?.isDefault === true);
    const otherId = world?.executionContextId ?? other?.id ?? 999999;
    const rtc = `(() => { try { new RTCPeerConnection(); return 'made'; } catch (e) { return 'throw ' + e.name; } })()`;
    const ev = await tryit('evaluate', 'Runtime.evaluate', { expression: rtc, contextId: otherId, returnByValue: true });
    out.rtc = String(ev?.result?.value);
    if (other?.uniqueId) await tryit('evaluateUnique', 'Runtime.evaluate', { expression: '1', uniqueContextId: other.uniqueId });
    await tryit('callFunctionOn', 'Runtime.callFunctionOn', { functionDeclaration: '() => 1', executionContextId: otherId });
    await tryit('compileScript', 'Runtime.compileScript', { expression: '1', sourceURL: '', persistScript: false, executionContextId: otherId });
    const doc: any = await client.send('DOM.getDocument', undefined, sessionId);
    await tryit('resolveNode', 'DOM.resolveNode', { nodeId: doc.root.nodeId, executionContextId: otherId });
    // The main world stays usable, by id and without one; there the in-page guard has removed RTCPeerConnection.
    const inMain = await tryit('mainWorld', 'Runtime.evaluate', { expression: rtc, contextId: main?.id, returnByValue: true });
    out.mainRtc = String(inMain?.result?.value);
    (client as any).removeListener('Runtime.executionContextCreated', onContext);
  } finally {
    await client.Target.detachFromTarget({ sessionId }).catch(() => undefined);
  }
  return out;
}

t.test('a CDP session may use other worlds in an act tab, and none but the main world in a read tab or on a read-only site', async (t) => {
  const s = await cdpSession();
  t.teardown(() => s.stop());
  const routes = ['createIsolatedWorld', 'newDocumentWorld', 'evaluate', 'callFunctionOn', 'compileScript', 'resolveNode'];
  const control = await open(`${stack.site.url}/plain`, 'act');
  const allowed = await otherWorlds(s.client, control);
  for (const r of routes) t.equal(allowed[r], 'ok', `act tab: ${r} is allowed (the route is real)`);
  t.equal(allowed.rtc, 'made', 'act tab: another world makes an RTCPeerConnection');
  await call(stack.client, 'browser_close_tab', { tab: control });
  for (const [label, url, mode] of [['read tab', `${stack.site.url}/plain?r`, 'read'], ['act tab on a read-only site', `${roOrigin}/plain`, 'act']] as const) {
    const tab = await open(url, mode);
    const got = await otherWorlds(s.client, tab);
    for (const r of routes) t.match(got[r], /^refused: browserd refuses /, `${label}: ${r} is refused`);
    if (got.evaluateUnique) t.match(got.evaluateUnique, /^refused: browserd refuses /, `${label}: evaluate by uniqueContextId is refused`);
    t.not(got.rtc, 'made', `${label}: no RTCPeerConnection from another world`);
    t.equal(got.mainWorld, 'ok', `${label}: the main world still runs script`);
    t.not(got.mainRtc, 'made', `${label}: and has no RTCPeerConnection`);
    t.notMatch(JSON.stringify(got), /\/work\/|\/tmp\//, `${label}: no refusal names a host path`);
    await call(stack.client, 'browser_close_tab', { tab });
  }
});
