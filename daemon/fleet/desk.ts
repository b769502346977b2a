/**
 * The fleet's sign-up desk: HAProxy sends POST /signup here (no token yet, so no routing key to route by). The
 * desk picks the host with the most room, hands the request to that host's own /signup (its sign-up switch,
 * name rules, per-address limit, audit and pages all apply as on a lone host; the client's address goes along in
 * X-Forwarded-For, which the host trusts from the desk), and when the host made the user, points the new
 * user's routing key at that host before the answer goes back. It keeps no state of its own.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Fleet } from './fleet.js';
import { BrowserdError } from '../../protocol/errors.js';
import { routingKeyOfToken } from '../../storage/routing-key.js';

const MAX_SIGNUP_BODY = 64 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_SIGNUP_BODY) {
        req.destroy();
        reject(new BrowserdError('payload_too_large', `a sign-up is at most ${MAX_SIGNUP_BODY} bytes`, { next: 'Send only the name.' }));
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function fail(res: ServerResponse, e: BrowserdError, status: number) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...(e.retryAfterS ? { 'Retry-After': String(e.retryAfterS) } : {}) });
  res.end(JSON.stringify({ ok: false, error: e.toBody() }));
}

/** A POST with exactly these headers (fetch would replace Host), answered whole. */
function post(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const out = request(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers as Record<string, string>, body: text }));
      res.on('error', reject);
    });
    out.on('timeout', () => out.destroy(new Error(`${url} did not answer within 30 s`)));
    out.on('error', reject);
    out.end(body);
  });
}

/** The name a sign-up asks for (JSON or form), if it names one. */
function nameIn(contentType: string, body: Buffer): string | undefined {
  try {
    const v = contentType.toLowerCase().startsWith('application/json') ? (JSON.parse(body.toString('utf8')) as { name?: unknown })?.name : new URLSearchParams(body.toString('utf8')).get('name');
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined; // the host says what is wrong with the body
  }
}

/** The token a host's sign-up answer carries: in its JSON, or shown once on its HTML page. */
export function tokenInAnswer(contentType: string, body: string): string | undefined {
  if (contentType.includes('json')) {
    try {
      const t = (JSON.parse(body) as { token?: unknown }).token;
      return typeof t === 'string' ? t : undefined;
    } catch {
      return undefined;
    }
  }
  return /id="new-token">(bd_[^<\s]+)</.exec(body)?.[1];
}

async function signup(fleet: Fleet, req: IncomingMessage, res: ServerResponse) {
  const body = await readBody(req);
  // A name is the fleet's: one some host has already goes to that host, which refuses it as taken (in its own
  // words and page); a new one goes to the host with the most room.
  const name = nameIn(String(req.headers['content-type'] ?? ''), body);
  const holder = name ? (await fleet.users()).find((u) => u.user === name)?.host : undefined;
  const [best] = holder ? [{ host: holder }] : await fleet.placements();
  if (!best) return fail(res, new BrowserdError('browser_capacity', 'no host of this fleet takes new users now', { next: 'Try again later, or ask the fleet\'s admin.', retryAfterS: 60 }), 503);
  const host = fleet.read().hosts.find((h) => h.name === best.host)!;
  // The client as HAProxy saw it: the last X-Forwarded-For entry is the one HAProxy wrote.
  const client = String(req.headers['x-forwarded-for'] ?? req.socket.remoteAddress ?? '').split(',').at(-1)!.trim();
  const answer = await post(`${host.url}/signup`, body, {
    'Content-Type': String(req.headers['content-type'] ?? 'application/x-www-form-urlencoded'),
    // The names the client used: the host's same-site check compares Origin with Host as the client sent them.
    ...(req.headers.origin ? { Origin: String(req.headers.origin) } : {}),
    ...(req.headers.host ? { Host: String(req.headers.host) } : {}),
    'X-Forwarded-For': client,
  });
  const text = answer.body;
  const contentType = answer.headers['content-type'] ?? '';
  if (answer.status === 201) {
    const token = tokenInAnswer(contentType, text);
    const key = token ? routingKeyOfToken(token) : undefined;
    if (!key) return fail(res, new BrowserdError('internal_error', `host ${host.name} made the user but its answer carried no routing key`, { next: "Ask the fleet's admin: 'browserd fleet users' shows the user unrouted." }), 500);
    await fleet.route(key, host.name);
  }
  const headers: Record<string, string> = { 'Content-Type': contentType, 'Cache-Control': 'no-store' };
  const retry = answer.headers['retry-after'];
  if (retry) headers['Retry-After'] = retry;
  res.writeHead(answer.status, headers);
  res.end(text);
}

/** Starts the desk on `listen` (host:port); it answers POST /signup and GET /health, nothing else. */
export function startDesk(fleetDir: string, listen: string): Promise<Server> {
  const fleet = new Fleet(fleetDir);
  let queue: Promise<unknown> = Promise.resolve();
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end('{"ok":true}');
    }
    if (req.method !== 'POST' || req.url !== '/signup') {
      return fail(res, new BrowserdError('not_found', 'the fleet desk answers POST /signup only', { next: 'Call the fleet at its public address.' }), 404);
    }
    // One sign-up at a time: the name check (which host has it?) and the making are two steps, and two sign-ups
    // of one new name at once both found it free and were placed on different hosts, making it twice (seen:
    // test/attacks/fleet-routing.test.ts). The desk is the fleet's one door for sign-up, so a queue here is enough.
    const turn = queue.then(() => signup(fleet, req, res));
    queue = turn.catch(() => undefined);
    turn.catch((e) => {
      const err = e instanceof BrowserdError ? e : new BrowserdError('internal_error', (e as Error).message, { next: 'Retry; if it goes on, ask the fleet\'s admin.' });
      if (!res.headersSent) fail(res, err, err.code === 'payload_too_large' ? 413 : 502);
    });
  });
  const i = listen.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(listen.slice(i + 1)), listen.slice(0, i), () => resolve(server));
  });
}
