/**
 * The admin console at /admin: HTML pages with a cookie session, not REST. Its routes are in SERVER_ROUTES with auth
 * 'none' (app.ts has already checked Host and Origin) and authenticate here, by the session cookie only.
 *
 * Every request: a URL carrying a key or token is refused before anything else, and neither logged nor echoed.
 * Every post: the form is read first (uWS hands the body only to a reader attached at once), then it must come
 * from the console's own pages, then carry the session's CSRF token, and only then changes anything. Failures
 * are answered as pages here, never thrown to the router, which would log the path.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { BrowserdError, ERROR_CODES, toBrowserdError } from '../../../protocol/errors.js';
import { readForm, send, type Req } from '../../http/exchange.js';
import { ADMIN_ACTOR, auditedChange, type Handler } from '../rest-call.js';
import { html, sendPage, type Markup } from './html.js';
import { consolePage, loginPage, type Flash } from './layout.js';
import { credentialInQuery, crossSiteProblem, csrfMatches, currentSession, sessionId } from './guard.js';
import { AdminSessions, clearedCookie, sessionCookie, type AdminSession } from './sessions.js';
import { addUser, shownOnce, userAction, usersBody } from './users-page.js';
import { saveSettings, settingsBody } from './settings-page.js';
import { approvalsBody, changeApprovals, changePolicy, policiesBody } from './policy-pages.js';
import { auditBody, browsersBody, overviewBody } from './status-pages.js';
import type { ServerDeps } from '../deps.js';

/** Wrong keys one address may try in 15 minutes: the key is far too long to guess, this keeps the log quiet. */
const LOGIN_FAILURES = 10;

const statusOf = (e: BrowserdError) => ERROR_CODES[e.code].status;

function segment(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    throw new BrowserdError('validation_error', 'the user name in the address is not valid', { next: 'Use the links of the console.' });
  }
}

export function adminConsoleHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  const sessions = new AdminSessions();
  const failures = new RateLimiterMemory({ points: LOGIN_FAILURES, duration: 15 * 60 });
  const secure = env.cfg.publicUrl?.startsWith('https:') ?? false;

  const refusedQuery = (r: Req) =>
    loginPage(r, 400, { error: 'A key or token never goes in a URL: this request was refused and nothing was recorded of it. Log in with the form below (and replace the key if the URL was shared).' });

  /** A page for a logged-in admin; otherwise the login form (401). */
  const page = (title: string, body: (s: AdminSession, r: Req) => Markup | Promise<Markup>): Handler => async (r) => {
    try {
      if (credentialInQuery(r)) return refusedQuery(r);
      const s = currentSession(env, sessions, r);
      if (!s) return loginPage(r, 401, { error: 'Log in with the admin key to use the console.' });
      consolePage(r, 200, s, title, await body(s, r));
    } catch (e) {
      failed(r, e, title);
    }
  };

  /**
   * A change: form read, origin and session and CSRF checked, then `change` runs and the page named by its
   * answer is shown with what happened. A refused or failed change shows the same page with the error.
   */
  const post = (title: string, change: (form: URLSearchParams, params: string[]) => Promise<{ flash: Flash; body: (s: AdminSession) => Markup | Promise<Markup> }>, fallback: (s: AdminSession, params: string[]) => Markup | Promise<Markup>): Handler => async (r, _u, params) => {
    let s: AdminSession | undefined;
    try {
      const form = await readForm(r);
      if (credentialInQuery(r)) return refusedQuery(r);
      const cross = crossSiteProblem(env, r);
      if (cross) return sendPage(r, 403, 'Refused', html`<main><h1>Refused</h1><p class="error" id="error">${cross}. Nothing was changed; use the console's own pages.</p></main>`);
      s = currentSession(env, sessions, r);
      if (!s) return loginPage(r, 401, { error: 'Your console session ended; log in again. Nothing was changed.' });
      if (!csrfMatches(s, form.get('csrf'))) {
        return consolePage(r, 403, s, title, await fallback(s, params), { error: 'This form is out of date or was not sent from this console. Nothing was changed; try again from this page.' });
      }
      const done = await change(form, params);
      consolePage(r, 200, s, title, await done.body(s), done.flash);
    } catch (e) {
      const err = toBrowserdError(e);
      if (err.code === 'internal_error') env.log.error({ page: title, err: e instanceof Error ? e.message : String(e) }, 'admin console change failed');
      if (!s) return failed(r, e, title);
      try {
        consolePage(r, statusOf(err), s, title, await fallback(s, params), { error: `${err.message}${err.next ? ` — ${err.next}` : ''}` });
      } catch (again) {
        failed(r, again, title);
      }
    }
  };

  function failed(r: Req, e: unknown, title: string) {
    const err = toBrowserdError(e);
    if (err.code === 'internal_error') env.log.error({ page: title, err: e instanceof Error ? e.message : String(e) }, 'admin console page failed');
    sendPage(r, statusOf(err), 'Not done', html`<main><h1>${title}</h1><p class="error" id="error">${err.message}${err.next ? ` — ${err.next}` : ''}</p><p><a href="/admin">Back to the console</a></p></main>`);
  }

  const policyUser = (r: Req) => r.query.get('user') || undefined;

  return {
    'GET /admin': async (r) => {
      if (credentialInQuery(r)) return refusedQuery(r);
      const s = currentSession(env, sessions, r);
      if (!s) return loginPage(r, 200);
      consolePage(r, 200, s, 'Overview', overviewBody(env));
    },

    'POST /admin/login': async (r) => {
      try {
        const form = await readForm(r);
        if (credentialInQuery(r)) return refusedQuery(r);
        const cross = crossSiteProblem(env, r);
        if (cross) return loginPage(r, 403, { error: `${cross}. Log in from this page.` });
        const address = r.remote;
        const blocked = await failures.get(address);
        if (blocked && blocked.remainingPoints <= 0) {
          const retry = Math.max(1, Math.ceil(blocked.msBeforeNext / 1000));
          return loginPage(r, 429, { error: `Too many wrong keys from your address; try again in ${retry} s.` }, { 'Retry-After': String(retry) });
        }
        const key = form.get('key') ?? '';
        if (!env.users.isAdminKey(key)) {
          await failures.consume(address).catch((e) => (e instanceof RateLimiterRes ? undefined : Promise.reject(e)));
          const isUserToken = !!env.users.authenticate(key);
          await auditedChange(env, ADMIN_ACTOR, 'admin.console_login', { client: address, from: 'console' }, async () => {
            throw new BrowserdError('unauthorized', 'not the admin key');
          }).catch(() => undefined);
          return loginPage(r, 401, { error: isUserToken ? 'That is a user token; the console opens only with the admin key.' : 'That is not the admin key.' });
        }
        const { id } = sessions.create(env.users.adminKeyStamp()!);
        await auditedChange(env, ADMIN_ACTOR, 'admin.console_login', { client: address, from: 'console' }, async () => undefined);
        // 303 to a GET: a reload of the next page never posts the key again.
        send(r, 303, '', { Location: '/admin', 'Set-Cookie': sessionCookie(id, secure), 'Cache-Control': 'no-store' });
      } catch (e) {
        failed(r, e, 'Log in');
      }
    },

    'POST /admin/logout': async (r) => {
      try {
        const form = await readForm(r);
        const s = currentSession(env, sessions, r);
        if (!s) return loginPage(r, 200, { notice: 'You are not logged in.' }, { 'Set-Cookie': clearedCookie(secure) });
        // Another site must not end the admin's session either (a nuisance, not a breach, but checked the same).
        if (crossSiteProblem(env, r) || !csrfMatches(s, form.get('csrf'))) {
          return consolePage(r, 403, s, 'Overview', overviewBody(env), { error: "Not logged out: use the console's own Log out button." });
        }
        sessions.end(sessionId(r));
        await auditedChange(env, ADMIN_ACTOR, 'admin.console_logout', { from: 'console' }, async () => undefined);
        loginPage(r, 200, { notice: 'Logged out.' }, { 'Set-Cookie': clearedCookie(secure) });
      } catch (e) {
        failed(r, e, 'Log out');
      }
    },

    'GET /admin/users': page('Users', (s) => usersBody(env, s)),
    'POST /admin/users': post(
      'Users',
      async (form) => {
        const { name, token } = await addUser(env, form);
        return { flash: { notice: `Added ${name}.` }, body: (s) => html`${shownOnce(env, name, token)}${usersBody(env, s)}` };
      },
      (s) => usersBody(env, s),
    ),
    'POST /admin/users/{name}': post(
      'Users',
      async (form, [raw]) => {
        const name = segment(raw);
        const { notice, token } = await userAction(server, name, form);
        return { flash: { notice }, body: (s) => html`${token ? shownOnce(env, name, token) : ''}${usersBody(env, s)}` };
      },
      (s) => usersBody(env, s),
    ),

    'GET /admin/settings': page('Browser settings', (s) => settingsBody(env, s)),
    'POST /admin/settings': post(
      'Browser settings',
      async (form) => {
        await saveSettings(env, form);
        return { flash: { notice: 'Saved. Documents loaded from now on get the new settings.' }, body: (s) => settingsBody(env, s) };
      },
      (s) => settingsBody(env, s),
    ),

    'GET /admin/policies': page('Host policies', (s, r) => policiesBody(env, s, policyUser(r))),
    'POST /admin/policies/{name}': post(
      'Host policies',
      async (form, [raw]) => {
        const name = segment(raw);
        const notice = await changePolicy(env, name, form);
        return { flash: { notice }, body: (s) => policiesBody(env, s, name) };
      },
      (s, [raw]) => {
        const name = segment(raw);
        return policiesBody(env, s, env.users.get(name) ? name : undefined);
      },
    ),

    'GET /admin/approvals': page('Approvals', (s) => approvalsBody(env, s)),
    'POST /admin/approvals/{name}': post(
      'Approvals',
      async (form, [raw]) => ({ flash: { notice: await changeApprovals(env, segment(raw), form) }, body: (s) => approvalsBody(env, s) }),
      (s) => approvalsBody(env, s),
    ),

    'GET /admin/audit': page('Audit', (_s, r) => auditBody(env, r.query)),
    'GET /admin/browsers': page('Running browsers', () => browsersBody(env)),
  };
}
