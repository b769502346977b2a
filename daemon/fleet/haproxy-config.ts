/**
 * The HAProxy configuration of a fleet: one frontend that reads each request's routing key (storage/
 * routing-key.ts) from its bearer token or its link, looks the key up in a map file of key -> host, and sends
 * the request to that host's backend. The map is the only state: the fleet's commands change it through
 * HAProxy's runtime API (and the file, for HAProxy's next start), so a new or moved user never reloads HAProxy
 * and adding a host moves nobody. A key the map lacks is answered 404 by the router itself: a request is never
 * sent to a host that is not the user's. Requests that name no user (the home page, the install guide,
 * sign-up, a request with no token) go to any host that is up, which answers them (or 401s them) as it would alone.
 *
 * Each host's backend checks GET /health every second; a host that stops answering is out after two checks,
 * and its users get 503 browser_capacity with Retry-After from the router (an errorfile), not a hang.
 */
import { BrowserdError } from '../../protocol/errors.js';

export interface FleetHost {
  /** A short name (letters, digits, '-'): the backend is `host_<name>`, the map's value. */
  name: string;
  /** host:port where HAProxy reaches its daemon. */
  addr: string;
}

export interface HaproxyFiles {
  /** Where clients connect (host:port). */
  listen: string;
  /** The key -> backend map. */
  mapFile: string;
  /** The 503 answer for a host that is down. */
  errorFile: string;
  /** The runtime API's Unix socket. */
  socket: string;
  /** Where the fleet's sign-up desk listens (host:port; desk.ts). */
  desk?: string;
}

export const HOST_NAME_SHAPE = /^[a-z0-9][a-z0-9-]{0,30}$/;
/** Seconds a user of a host that is down is told to wait. */
export const DOWN_RETRY_AFTER_S = 5;
/** The paths whose second segment is a link token (`<key>.<secret>`), and the SMS forwarder's inbox path. */
const LINK_PATHS = ['/live/', '/handoff/', '/cdp/', '/dl/'];

/** HTTP/1.1 with a Host the host accepts (HAProxy's default check is HTTP/1.0 with none). */
const HEALTH_CHECK = '  http-check send meth GET uri /health ver HTTP/1.1 hdr Host localhost';

export const backendOf = (host: string) => `host_${host}`;

/** A JSON string HAProxy's `string` argument takes: inside double quotes, with quotes and backslashes escaped. */
const quoted = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function unknownKeyBody(): string {
  const e = new BrowserdError('not_found', 'no host of this fleet has a user with this token or link', {
    next: 'Check the token or link (copy it whole); a user who was removed, or a link from before a move, is not known here.',
  });
  return JSON.stringify({ ok: false, error: e.toBody() });
}

/** The raw HTTP answer HAProxy gives when the user's host is down (an errorfile is a whole response). */
export function hostDownResponse(): string {
  const e = new BrowserdError('browser_capacity', "this user's host is not answering; it is being checked every second", {
    next: `Retry in ${DOWN_RETRY_AFTER_S} seconds; your tabs, files and logins are kept on that host and come back with it.`,
    retryAfterS: DOWN_RETRY_AFTER_S,
  });
  const body = JSON.stringify({ ok: false, error: e.toBody() });
  return [
    'HTTP/1.1 503 Service Unavailable',
    'Content-Type: application/json; charset=utf-8',
    `Retry-After: ${DOWN_RETRY_AFTER_S}`,
    'Cache-Control: no-store',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

export function haproxyConfig(hosts: FleetHost[], f: HaproxyFiles): string {
  for (const h of hosts) if (!HOST_NAME_SHAPE.test(h.name)) throw new Error(`host name ${JSON.stringify(h.name)}: use lowercase letters, digits and '-'`);
  const lines = [
    '# Written by `browserd fleet`; regenerate it rather than edit it (docs/fleet.md).',
    'global',
    `  stats socket ${f.socket} mode 600 level admin`,
    // No maxconn: HAProxy sizes it from the file descriptors it may open (raise LimitNOFILE to raise it).
    '',
    'defaults',
    '  mode http',
    '  timeout connect 3s',
    // Tool calls may wait minutes on a page or a person; WebSockets (live view, CDP sessions) stay open.
    '  timeout client 10m',
    '  timeout server 10m',
    '  timeout tunnel 1h',
    '  retries 2',
    // The client's address for the hosts' sign-up limits and logs (hosts trust it from HAProxy's address only).
    '  option forwardfor',
    '',
    'frontend browserd',
    `  bind ${f.listen}`,
    // The key: "Bearer bd_<key>.<secret>" -> <key>; "/live/<key>.<secret>" (and the other links) -> <key>.
    // Read as the hosts read it (/^Bearer\s+/i on the whole header, exchange.ts): "bearer" in any case and any
    // run of spaces or tabs. Matching only "Bearer bd_" sent `bearer bd_...` to whichever host was first, not the
    // user's (test/attacks/fleet-routing.test.ts). req.fhdr, not req.hdr: the header whole, not cut at commas.
    '  http-request set-var(txn.rk) req.fhdr(authorization),field(2,_),field(1,.) if { req.fhdr(authorization) -m reg -i ^bearer[[:space:]]+bd_ }',
    `  http-request set-var(txn.rk) path,field(3,/),field(1,.) if { path_beg ${LINK_PATHS.join(' ')} }`,
    '  http-request set-var(txn.rk) path,field(5,/),field(1,.) if { path_beg /v1/inbox/sms/ }',
    `  http-request set-var(txn.home) var(txn.rk),map(${f.mapFile}) if { var(txn.rk) -m found }`,
    `  http-request return status 404 content-type application/json string ${quoted(unknownKeyBody())} if { var(txn.rk) -m found } !{ var(txn.home) -m found }`,
    '  use_backend %[var(txn.home)] if { var(txn.home) -m found }',
    // Sign-up has no key yet: the desk places the new user on a host with room and routes their key there.
    ...(f.desk ? ['  use_backend desk if { method POST } { path /signup }'] : []),
    '  default_backend anyhost',
    '',
    // Requests that name no user: any host that is up answers them.
    'backend anyhost',
    '  balance first',
    '  option httpchk',
    HEALTH_CHECK,
    '  default-server inter 1s fall 2 rise 1',
    `  errorfile 503 ${f.errorFile}`,
    ...hosts.map((h) => `  server ${h.name} ${h.addr} check`),
    '',
    ...(f.desk
      ? ['backend desk', '  option httpchk', '  http-check send meth GET uri /health ver HTTP/1.1 hdr Host localhost', '  default-server inter 1s fall 2 rise 1', `  errorfile 503 ${f.errorFile}`, `  server desk ${f.desk} check`, '']
      : []),
    ...hosts.flatMap((h) => [
      `backend ${backendOf(h.name)}`,
      '  option httpchk',
      HEALTH_CHECK,
      '  default-server inter 1s fall 2 rise 1',
      `  errorfile 503 ${f.errorFile}`,
      `  server ${h.name} ${h.addr} check`,
      '',
    ]),
  ];
  return lines.join('\n');
}
