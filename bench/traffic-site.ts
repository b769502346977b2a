/**
 * The traffic benchmark's loopback site: PAGE_COUNT pages, each whose script makes CALLS_PER_PAGE API calls
 * (three waves of ten, as a page that lists things and then reads them would) and then stores the moment it
 * finished, `window.__apiDone = performance.now()`. That stamp is the page's load time as the page itself saw it
 * (from navigation start to its last API answer read), so no CDP round trip of any driver is in it.
 *
 * Every answer is `no-store`, so each load really asks the server; bodies are deterministic, so every side
 * of the benchmark sees the same bytes. A few calls answer a few KB, two send a small JSON body (POST).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export const PAGE_COUNT = 20;
export const CALLS_PER_PAGE = 30;
/**
 * An expression for a driver to evaluate in a page: the page's own stamp, waited for (set already, as a rule, by
 * the time a driver's load wait returns); -2 when it never came.
 */
export const PAGE_STAMP = `new Promise((resolve) => { const t0 = Date.now(); const look = () => (window.__apiDone !== undefined || Date.now() - t0 > 20000 ? resolve(window.__apiDone ?? -2) : setTimeout(look, 5)); look(); })`;
/** Calls per wave; a wave starts when the previous one's answers are all read. */
const WAVE = 10;
/** Calls (by index) that answer a few KB, and the ones that POST a body. */
const BIG = new Set([4, 15, 26]);
const POSTS = new Set([9, 21]);
const BIG_ITEMS = 40;

export interface TrafficSite {
  origin: string;
  pageUrl(n: number, run: number | string): string;
  /** API requests answered since the site started (a check that every side really made its calls). */
  apiCalls(): number;
  close(): Promise<void>;
}

function item(page: number, id: number) {
  return { id, page, name: `Item ${page}-${id}`, price: Math.round(((page * 31 + id * 17) % 997) * 1.5) / 10, tags: ['red', 'blue', 'green'].slice(0, 1 + (id % 3)), inStock: id % 4 !== 0 };
}

/** The page's own script: the calls, in waves, then the stamp. Everything it needs is in the page. */
function pageScript(page: number): string {
  return `
(async () => {
  const big = ${JSON.stringify([...BIG])}, posts = ${JSON.stringify([...POSTS])};
  const call = async (i) => {
    if (posts.includes(i)) {
      const r = await fetch('/api/${page}/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: ${page}, call: i, note: 'x'.repeat(600) }) });
      return r.json();
    }
    const r = await fetch(big.includes(i) ? '/api/${page}/items?limit=${BIG_ITEMS}&call=' + i : '/api/${page}/items/' + i);
    return r.json();
  };
  let n = 0;
  for (let w = 0; w < ${CALLS_PER_PAGE}; w += ${WAVE}) {
    const answers = await Promise.all(Array.from({ length: ${WAVE} }, (_, k) => call(w + k)));
    n += answers.length;
  }
  document.getElementById('status').textContent = n + ' calls done';
  window.__apiDone = performance.now();
})().catch((e) => { window.__apiDone = -1; document.getElementById('status').textContent = String(e); });`;
}

function pageHtml(page: number): string {
  // data: icon: no /favicon.ico request on any side.
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Traffic page ${page}</title></head>
<body><h1>Traffic page ${page}</h1><p id="status">loading</p><script>${pageScript(page)}</script></body></html>`;
}

/** The site over https when given a key and certificate (PEM), over plain http otherwise. */
export async function startTrafficSite(tls?: { key: string; cert: string }): Promise<TrafficSite> {
  let calls = 0;
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'p' && parts.length === 2) return send(res, 200, 'text/html; charset=utf-8', pageHtml(Number(parts[1])));
    if (parts[0] !== 'api') return send(res, 404, 'text/plain', 'not found');
    calls++;
    const page = Number(parts[1]);
    if (req.method === 'POST') {
      let size = 0;
      req.on('data', (c: Buffer) => (size += c.length));
      req.on('end', () => send(res, 201, 'application/json', JSON.stringify({ ok: true, received: size, id: `ev_${page}_${calls}` })));
      return;
    }
    if (parts[2] === 'items' && parts.length === 3) {
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const items = Array.from({ length: limit }, (_, i) => item(page, i + 1));
      return send(res, 200, 'application/json', JSON.stringify({ items, page: 1, next: `/api/${page}/items?page=2&limit=${limit}` }));
    }
    return send(res, 200, 'application/json', JSON.stringify(item(page, Number(parts[3]))));
  };
  const server = tls ? createTlsServer(tls, handler) : createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (n, run) => `${origin}/p/${n}?r=${run}`,
    apiCalls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
