/**
 * A shared or service worker a read tab makes runs under read rules. The in-page guard removes SharedWorker and
 * navigator.serviceWorker from the page's main world only, so a timed CDP session can still make one from an
 * isolated world it creates in a read tab; the worker must not then write under act rules. Each route first
 * runs in an act tab on an ordinary site (the control: the worker's POST reaches the server), then from read
 * tabs, where the fixture's counting listener must see no POST. The worker reports back with a GET either way.
 */
import t from 'tap';
import CDP from 'chrome-remote-interface';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';

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

/** Runs an expression in a fresh isolated world of a daemon tab's page, made through the CDP session. */
async function inIsolatedWorld(client: CDP.Client, tab: string, expression: string): Promise<string> {
  const targetId = stack.d.daemon.env.pool.peek('alice')!.tabs.get(tab)!.targetId;
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  try {
    const tree: any = await client.send('Page.getFrameTree', undefined, sessionId);
    const world: any = await client.send('Page.createIsolatedWorld', { frameId: tree.frameTree.frame.id, worldName: 'probe' }, sessionId);
    const r: any = await client.send('Runtime.evaluate', { expression, contextId: world.executionContextId, awaitPromise: true, returnByValue: true }, sessionId);
    return String(r.result?.value ?? r.exceptionDetails?.text);
  } finally {
    await client.Target.detachFromTarget({ sessionId }).catch(() => undefined);
  }
}

const sharedWorker = (tag: string) => `(() => { try { new SharedWorker('/worker.js?tag=${tag}'); return 'made'; } catch (e) { return 'throw ' + e.name; } })()`;
const serviceWorker = (tag: string) => `navigator.serviceWorker.register('/worker.js?tag=${tag}', { scope: '/sw-${tag}/' }).then(() => 'made', (e) => 'throw ' + e.name)`;

for (const [kind, make] of [['shared worker', sharedWorker], ['service worker', serviceWorker]] as const) {
  t.test(`a ${kind} made from a read tab's isolated world sends no POST`, async (t) => {
    const s = await cdpSession();
    t.teardown(() => s.stop());
    const slug = kind.split(' ')[0];
    const control = await open(`${stack.site.url}/plain`, 'act');
    const controlReport = expectReport(`${slug}-control`);
    t.equal(await inIsolatedWorld(s.client, control, make(`${slug}-control`)), 'made', 'the act tab\'s isolated world makes the worker');
    t.equal(await controlReport, 'sent', 'the route is real: the act tab\'s worker POSTs');
    t.equal(postsFor(`${slug}-control`).length, 1, 'and the server saw that POST');
    await call(stack.client, 'browser_close_tab', { tab: control });
    for (let i = 0; i < 3; i++) {
      const tag = `${slug}-read-${i}`;
      const read = await open(`${stack.site.url}/plain?i=${i}`, 'read');
      const reported = expectReport(tag);
      const made = await inIsolatedWorld(s.client, read, make(tag));
      // Made or not, the worker must not write: when it runs it says so with its GET.
      if (made === 'made') t.equal(await reported, 'refused', `read tab ${i}: the ${kind}'s POST was refused`);
      else reports.delete(tag);
      t.same(postsFor(tag), [], `read tab ${i}: no POST from the ${kind} reached the server`);
      await call(stack.client, 'browser_close_tab', { tab: read });
    }
  });
}
