/**
 * The "Your turn" page of a hand-off: GET /handoff/{token} shows the agent's message (as text, never HTML),
 * the reason, the time left, the live browser and a Done button; POST /handoff/{token}/done resolves it.
 * The token in the path is the only credential, so: it is never logged, no Referer ever carries the path, the
 * page is not cached, and anything but an open hand-off's token gets the same plain page that says nothing.
 * Referrer policy strict-origin rather than no-referrer: under no-referrer Chromium sends `Origin: null` with
 * the page's own Done post, which the Origin check (rightly) refuses; strict-origin sends only the origin,
 * never the path, so the token stays out of every Referer all the same.
 * Cross-site posts are refused twice over: app.ts refuses a foreign Origin before any handler runs, and the
 * Done handler refuses a browser that says the post came from another site (Sec-Fetch-Site).
 */
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform.js';
import type { HandoffRecord } from '../../storage/handoffs.js';
import { createLiveLink } from '../viewer/index.js';
import { send, type Req } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import { HANDOFFS, type HandoffService } from './service.js';
import type { RouteSpec } from '../server/routes.js';

const REASONS: Record<HandoffRecord['reason'], string> = {
  captcha: 'A CAPTCHA needs solving',
  two_factor: 'A sign-in code is needed',
  needs_approval: 'Your approval is needed',
  login: 'A login is needed',
  other: 'A step needs a person',
};

/** Text as HTML text: every character that could open markup or end an attribute is an entity. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const REFERRER_POLICY = 'strict-origin';

function headers(csp: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
    'Referrer-Policy': REFERRER_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  };
}

/** CSP of pages with no script and no frame: only our nonce'd style. */
const plainCsp = (nonce: string) => `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}
main{max-width:1100px;margin:0 auto;padding:16px}h1{margin:0 0 8px;font-size:24px}
.reason{margin:0 0 8px;color:#555}.message{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px;margin:0 0 12px}
.live{margin:0 0 12px}.live iframe{width:100%;height:70vh;border:1px solid #ccc;border-radius:8px;background:#fff}
.unavailable{color:#777;font-style:italic}button{font:inherit;font-size:18px;padding:10px 28px;border-radius:8px;border:0;background:#1a7f37;color:#fff;cursor:pointer}
button:disabled{background:#999;cursor:default}`;

function page(status: number, r: Req, title: string, body: string) {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="${REFERRER_POLICY}"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body><main>${body}</main></body></html>`;
  send(r, status, html, headers(plainCsp(nonce)));
}

/** The same answer for an unknown, malformed or guessed token: nothing about whether anything exists. */
const notFound = (r: Req) => page(404, r, 'Link not valid', '<h1>This link is not valid</h1><p>Ask for a new link.</p>');
/** A token that was real but whose hand-off is over (done or expired): which of the two is not said. */
const gone = (r: Req) => page(410, r, 'Link no longer active', '<h1>This link is no longer active</h1><p>There is nothing left to do here. Ask for a new link if you still need one.</p>');

function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

/** The tab to show: the one the hand-off names, else the user's current tab. */
function tabFor(env: Platform, rec: HandoffRecord): string | undefined {
  if (rec.tab && env.tabs.get(rec.user, rec.tab)) return rec.tab;
  const d = env.tabs.getDefault(rec.user);
  if (d && env.tabs.get(rec.user, d)) return d;
  return env.tabs.list(rec.user).at(-1)?.id;
}

/** The live viewer for the hand-off's tab, or why there is none (the page works either way). */
function liveView(env: Platform, rec: HandoffRecord): { url?: string; note?: string } {
  const tab = tabFor(env, rec);
  if (!tab) return { note: 'Live view unavailable: no tab is open.' };
  try {
    return { url: createLiveLink(env, rec.user, tab, { mode: 'interactive' }).url };
  } catch (e) {
    if ((e as { code?: string }).code !== 'not_configured') env.log.warn({ handoff: rec.id, err: String(e) }, 'hand-off page: no live link');
    return { note: 'Live view unavailable.' };
  }
}

function yourTurn(env: Platform, handoffs: HandoffService, r: Req, token: string, rec: HandoffRecord) {
  const nonce = randomBytes(16).toString('base64');
  const live = liveView(env, rec);
  let liveOrigin: string | undefined;
  try {
    if (live.url) liveOrigin = new URL(live.url).origin;
  } catch {
    live.url = undefined;
    live.note = 'Live view unavailable.';
  }
  const leftMs = Date.parse(rec.expiresAt) - handoffs.now();
  const body = [
    '<h1>Your turn</h1>',
    `<p class="reason">${escapeHtml(REASONS[rec.reason] ?? REASONS.other)}</p>`,
    `<div class="message" id="message">${escapeHtml(rec.message)}</div>`,
    `<p>Time left: <span id="left">${escapeHtml(timeLeft(leftMs))}</span></p>`,
    `<section class="live">${live.url ? `<iframe id="live" src="${escapeHtml(live.url)}" title="Live browser" allow="clipboard-read; clipboard-write"></iframe>` : `<p class="unavailable" id="live-unavailable">${escapeHtml(live.note ?? 'Live view unavailable.')}</p>`}</section>`,
    `<form method="post" action="/handoff/${escapeHtml(encodeURIComponent(token))}/done"><button type="submit" id="done">Done</button></form>`,
    // The countdown only: the page works without script, and the server decides expiry whatever this says.
    `<script nonce="${nonce}">(()=>{const end=Date.now()+${Math.max(0, leftMs)},el=document.getElementById('left'),b=document.getElementById('done');const f=s=>{const h=Math.floor(s/3600),m=Math.floor(s%3600/60);return h?h+' h '+m+' min':m?m+' min '+s%60+' s':s+' s'};const t=()=>{const s=Math.max(0,Math.ceil((end-Date.now())/1000));el.textContent=s?f(s):'expired';if(!s){b.disabled=true;clearInterval(i)}};const i=setInterval(t,1000)})()</script>`,
  ].join('');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `frame-src ${liveOrigin && liveOrigin !== 'null' ? liveOrigin : "'none'"}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="${REFERRER_POLICY}"><title>Your turn</title><style nonce="${nonce}">${STYLE}</style></head><body><main>${body}</main></body></html>`;
  send(r, 200, html, headers(csp));
}

/** An open hand-off for a token, else undefined after answering the plain 404 or 410 page. */
function openFor(env: Platform, handoffs: HandoffService, r: Req, token: string): HandoffRecord | undefined {
  const rec = handoffs.byToken(token);
  // A disabled account's links stop working at once, as its token does.
  if (!rec || !env.users.isActive(rec.user)) return void notFound(r);
  if (handoffs.statusOf(rec) !== 'open') return void gone(r);
  return rec;
}

/**
 * Failures are answered here, never thrown: the router would log the request path, and the path holds the
 * token. What is logged names the hand-off id only.
 */
function guarded(env: Platform, fn: (r: Req, token: string) => Promise<void>): Handler {
  return async (r, _user, [token]) => {
    try {
      await fn(r, token ?? '');
    } catch (e) {
      env.log.error({ err: e instanceof Error ? e.message : String(e) }, 'hand-off page failed');
      page(500, r, 'Something went wrong', '<h1>Something went wrong</h1><p>Try again in a moment.</p>');
    }
  };
}

export const HANDOFF_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/handoff/{token}', auth: 'none', summary: 'The "Your turn" page of a hand-off (HTML); the token in the link is the credential' },
  { method: 'POST', path: '/handoff/{token}/done', auth: 'none', summary: 'Done on the "Your turn" page: resolves the hand-off (same-origin form post)' },
];

export function handoffPageHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  const handoffs = server.services.get(HANDOFFS);
  return {
    'GET /handoff/{token}': guarded(env, async (r, token) => {
      const rec = openFor(env, handoffs, r, token);
      if (rec) yourTurn(env, handoffs, r, token, rec);
    }),
    'POST /handoff/{token}/done': guarded(env, async (r, token) => {
      const site = r.headers['sec-fetch-site'];
      if (site && site !== 'same-origin' && site !== 'none') {
        return page(403, r, 'Not allowed', '<h1>Not allowed</h1><p>Press Done on the hand-off page itself.</p>');
      }
      const rec = openFor(env, handoffs, r, token);
      if (!rec) return;
      try {
        await handoffs.resolve(rec.user, rec.id, 'person');
      } catch (e) {
        // Expired or resolved a moment ago (a second press, or the agent resolved it first).
        if ((e as { code?: string }).code === 'refused') return gone(r);
        throw e;
      }
      page(200, r, 'Done', '<h1 id="thanks">Done, thank you</h1><p>The agent carries on from here. You can close this page.</p>');
    }),
  };
}
