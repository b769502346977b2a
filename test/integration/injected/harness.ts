/**
 * A small harness for the in-page script: one real Chromium per test file, a loopback page server, and pages
 * with the freshly built script injected into an isolated world named `browserd`, as the daemon does it.
 *
 *   const h = await startHarness(t);          // in t.before; closed by t.teardown
 *   h.route('/x', '<button>Hi</button>');
 *   const p = await h.open('/x');
 *   const snap = await p.call('snapshot', {});
 *   await p.evalMain('document.title');      // the page's own world
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { launchChromium, type LaunchedChromium } from '../../../daemon/browser/launcher.js';
import type { CdpConnection } from '../../../daemon/cdp/connection.js';
import { bundleInjected } from '../../../scripts/build-injected.js';
import type { InjectedAnswer, InjectedApi } from '../../../injected/api.js';
import { LISTENER_MARKER_SOURCE } from '../../../injected/listeners.js';

type Api = Omit<InjectedApi, 'version'>;
type Failure = Extract<InjectedAnswer<unknown>, { ok: false }>;
type Handler = string | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

export interface Page {
  sessionId: string;
  targetId: string;
  /** The isolated world's execution context. */
  contextId: number;
  /** Calls `__browserd.fn(...args)` in the isolated world and returns its value; a failure answer rejects. */
  call<K extends keyof Api>(fn: K, ...args: Parameters<Api[K]>): Promise<ReturnType<Api[K]>>;
  /** The same call, expected to fail: the failure answer ({ok: false, code, message, details}); a value rejects. */
  fails<K extends keyof Api>(fn: K, ...args: Parameters<Api[K]>): Promise<Failure>;
  /** The raw answer envelope of a call. */
  answer<K extends keyof Api>(fn: K, ...args: Parameters<Api[K]>): Promise<InjectedAnswer<ReturnType<Api[K]>>>;
  /** Evaluates an expression in the isolated world (returnByValue). */
  evalWorld<T = unknown>(expression: string): Promise<T>;
  /** Evaluates an expression in the page's main world (returnByValue, promises awaited). */
  evalMain<T = unknown>(expression: string): Promise<T>;
  /** Navigates, waits for load, and injects into the new document. */
  goto(path: string): Promise<void>;
  close(): Promise<void>;
}

export interface Harness {
  url: string;
  /** A second origin on another loopback address, for cross-origin (out-of-process) frames. */
  otherUrl: string;
  source: string;
  conn: CdpConnection;
  route(path: string, body: Handler): void;
  open(path: string, opts?: { width?: number; height?: number }): Promise<Page>;
}

export function page(body: string, head = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title>${head}</head><body>${body}</body></html>`;
}

function serve(routes: Map<string, Handler>, host: string): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const h = routes.get(path);
    if (!h) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    if (typeof h === 'function') return h(req, res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(h.startsWith('<!doctype') ? h : page(h));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Loopback only.
    server.listen(0, host, () => resolve({ server, url: `http://${host}:${(server.address() as AddressInfo).port}` }));
  });
}

export async function startHarness(t: { teardown(fn: () => unknown): void }): Promise<Harness> {
  const source = await bundleInjected();
  const routes = new Map<string, Handler>();
  const main = await serve(routes, '127.0.0.1');
  const other = await serve(routes, '127.0.0.2').catch(() => main);
  const dir = mkdtempSync(join(tmpdir(), 'browserd-injected-'));
  let chrome: LaunchedChromium | undefined;
  let conn: CdpConnection | undefined;
  try {
    chrome = await launchChromium({ userDataDir: dir, headless: true, windowSize: { width: 1280, height: 900 } });
    conn = chrome.conn;
  } catch (e) {
    await chrome?.close();
    main.server.close();
    other.server.close();
    throw e;
  }
  const c = conn;
  t.teardown(async () => {
    await c.close();
    await chrome!.close();
    main.server.close();
    if (other !== main) other.server.close();
    // Chromium's helpers may still be writing for a moment after it exits.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch {
      /* a leftover temp dir is harmless */
    }
  });

  async function open(path: string, opts: { width?: number; height?: number } = {}): Promise<Page> {
    const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
    await c.send('Page.enable', {}, sessionId);
    // As the daemon does: the main-world listener marker runs before page script.
    await c.send('Page.addScriptToEvaluateOnNewDocument', { source: LISTENER_MARKER_SOURCE }, sessionId);
    await c.send('Emulation.setDeviceMetricsOverride', { width: opts.width ?? 1280, height: opts.height ?? 800, deviceScaleFactor: 1, mobile: false }, sessionId);
    const p: Page = {
      sessionId,
      targetId,
      contextId: 0,
      async answer(fn, ...args) {
        const expression = `__browserd.${String(fn)}(...${JSON.stringify(args)})`;
        const r = await c.send('Runtime.evaluate', { expression, contextId: p.contextId, returnByValue: true, awaitPromise: true }, sessionId);
        // The envelope promises the script never throws: an exception here is a defect of the wrapper.
        if (r.exceptionDetails) throw new Error(`${String(fn)} threw past the envelope: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value;
      },
      async call(fn, ...args) {
        const a = await p.answer(fn, ...args);
        if (!a.ok) throw Object.assign(new Error(`${String(fn)} failed [${a.code}]: ${a.message}`), { code: a.code, details: a.details });
        return a.value;
      },
      async fails(fn, ...args) {
        const a = await p.answer(fn, ...args);
        if (a.ok) throw new Error(`${String(fn)} was expected to fail but answered ${JSON.stringify(a.value)}`);
        return a;
      },
      async evalWorld(expression) {
        const r = await c.send('Runtime.evaluate', { expression, contextId: p.contextId, returnByValue: true, awaitPromise: true }, sessionId);
        if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
        return r.result.value;
      },
      async evalMain(expression) {
        const r = await c.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
        if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
        return r.result.value;
      },
      async goto(to: string) {
        const loaded = c.waitFor('Page.loadEventFired', sessionId, () => true, 15000);
        const nav = await c.send('Page.navigate', { url: to.startsWith('http') ? to : main.url + to }, sessionId);
        if (nav.errorText) throw new Error(`navigation to ${to} failed: ${nav.errorText}`);
        await loaded;
        const tree = await c.send('Page.getFrameTree', {}, sessionId);
        const world = await c.send('Page.createIsolatedWorld', { frameId: tree.frameTree.frame.id, worldName: 'browserd', grantUniveralAccess: false }, sessionId);
        p.contextId = world.executionContextId;
        const r = await c.send('Runtime.evaluate', { expression: source, contextId: p.contextId }, sessionId);
        if (r.exceptionDetails) throw new Error(`injecting failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      },
      async close() {
        await c.sendMayFail('Target.closeTarget', { targetId });
      },
    };
    await p.goto(path);
    return p;
  }

  return {
    url: main.url,
    otherUrl: other.url,
    source,
    conn: c,
    route: (path, body) => void routes.set(path, body),
    open,
  };
}
