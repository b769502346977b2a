/**
 * The home page (GET /) and sign-up (POST /signup). The page says what this service is and where agents
 * connect; when the admin turned `signup` on, it has a form that makes a user and shows its token once.
 *
 * Limits: sign-up attempts are counted per client address, `signupPerHour` an hour: every attempt with a
 * well-formed name while sign-up is on, a taken name too, so which names exist cannot be probed faster than
 * users are made. A malformed name is refused before counting (it tells nothing). The address is the socket's
 * peer; X-Forwarded-For is not read, since any client can write it (behind a reverse proxy every visitor then
 * shares the proxy's budget). IPv6 peers count per /64, the block one subscriber usually holds.
 *
 * No CSRF token: a forged sign-up would use no credential of the victim's (there is none to use), the token it
 * makes is shown only to the browser that posted, which another site cannot read, and app.ts already refuses a
 * post whose Origin is another site's.
 *
 * Answers are HTML to the form, JSON to a JSON post (for scripts: {ok, user, token, mcpUrl}).
 */
import { isIP } from 'node:net';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Platform } from '../platform.js';
import { BrowserdError, ERROR_CODES, toBrowserdError } from '../../protocol/errors.js';
import { readForm, readJson, sendJson, type Req } from '../http/exchange.js';
import { auditedChange, type Handler } from './rest-call.js';
import { assertNewUserName, assertUserName } from './user-name.js';
import { html, sendPage, type Markup } from './admin/html.js';

/** Who sign-ups are audited as: no user name can be spelt so. */
export const SIGNUP_ACTOR = { id: '(signup)' } as const;

/** The key an address is counted under: IPv4 as is (also when mapped into IPv6), IPv6 by its /64. */
export function clientKey(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^(?:0{0,4}:){0,5}ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  if (isIP(a) !== 6) return a;
  const [head, tail = ''] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function homeBody(env: Platform, signupOn: boolean, extra?: Markup): Markup {
  const base = env.baseUrl();
  const form = signupOn
    ? html`<h2>Sign up</h2><form method="post" action="/signup" id="signup"><label for="name">name</label> <input id="name" name="name" required autocomplete="username"> <button type="submit">Create my user</button><p class="muted">1-64 lowercase letters, digits, ".", "_" or "-". Your token is shown once, on the next page.</p></form>`
    : html`<p class="muted" id="signup-off">Accounts on this host are made by its admin.</p>`;
  return html`<main><h1>browserd</h1><p>A service that gives each user one real, persistent Chromium (cookies and logins kept between sessions), for AI agents over MCP and for programs over REST.</p>
${extra ?? ''}
<table><tbody><tr><th>MCP endpoint</th><td><code>${base}/mcp</code></td></tr><tr><th>REST base</th><td><code>${base}/v1</code></td></tr><tr><th>Guide for agents</th><td><a href="/install.md">${base}/install.md</a></td></tr></tbody></table>
<p>Every request carries <code>Authorization: Bearer &lt;your token&gt;</code>.</p>
${form}</main>`;
}

function created(env: Platform, name: string, token: string): Markup {
  const base = env.baseUrl();
  return html`<section id="created"><h2>Welcome, ${name}</h2><p>Your token, shown this once (copy it now; it cannot be shown again, and the admin can only replace it):</p><code class="secret" id="new-token">${token}</code>
<p>MCP URL: <code id="mcp-url">${base}/mcp</code> with the header <code>Authorization: Bearer &lt;your token&gt;</code>. Setup for agents: <a href="/install.md">/install.md</a>.</p></section>`;
}

export function signupHandlers(env: Platform): Record<string, Handler> {
  const limiter = new RateLimiterMemory({ points: env.cfg.signupPerHour, duration: 3600 });

  const isJson = (r: Req) => (r.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');

  async function signUp(r: Req, name: unknown): Promise<{ name: string; token: string }> {
    if (!env.browserSettings.current().signup) {
      throw new BrowserdError('forbidden', 'sign-up is off on this host', { next: 'Ask the admin of this host for an account (or to turn sign-up on).' });
    }
    const key = clientKey(r.remote);
    return auditedChange(env, SIGNUP_ACTOR, 'signup', { name: typeof name === 'string' ? name.slice(0, 64) : null, client: key }, async () => {
      assertUserName(name);
      try {
        await limiter.consume(key);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        const retryAfterS = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        throw new BrowserdError('rate_limited', `too many sign-ups from your address (at most ${env.cfg.signupPerHour} an hour)`, { next: `Wait ${retryAfterS} seconds and try again.`, retryAfterS });
      }
      const checked = assertNewUserName(env, name);
      return { name: checked, token: (await env.users.add(checked)).token };
    });
  }

  return {
    'GET /': async (r) => sendPage(r, 200, 'browserd', homeBody(env, env.browserSettings.current().signup)),
    'POST /signup': async (r) => {
      if (isJson(r)) {
        const body = (await readJson(r)) as { name?: unknown } | null;
        const { name, token } = await signUp(r, body && typeof body === 'object' ? body.name : undefined);
        return sendJson(r, 201, { ok: true, user: name, token, mcpUrl: `${env.baseUrl()}/mcp`, guide: `${env.baseUrl()}/install.md` }, { 'Cache-Control': 'no-store' });
      }
      try {
        const form = await readForm(r);
        const { name, token } = await signUp(r, form.get('name'));
        sendPage(r, 201, 'browserd: your token', homeBody(env, false, created(env, name, token)));
      } catch (e) {
        const err = toBrowserdError(e);
        if (err.code === 'internal_error') env.log.error({ err: e instanceof Error ? e.message : String(e) }, 'sign-up failed');
        const headers: Record<string, string> = err.retryAfterS ? { 'Retry-After': String(err.retryAfterS) } : {};
        const problem = html`<p class="error" id="error" role="alert" data-code="${err.code}">${err.message}${err.next ? ` — ${err.next}` : ''}</p>`;
        sendPage(r, ERROR_CODES[err.code].status, 'browserd: sign-up', homeBody(env, env.browserSettings.current().signup, problem), headers);
      }
    },
  };
}
