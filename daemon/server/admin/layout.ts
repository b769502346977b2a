/** The console's page shell (navigation, log-out, notices) and its login page. */
import type { Req } from '../../http/exchange.js';
import { html, sendPage, type Markup } from './html.js';
import type { AdminSession } from './sessions.js';

const NAV: [string, string][] = [
  ['/admin', 'Overview'],
  ['/admin/users', 'Users'],
  ['/admin/settings', 'Browser settings'],
  ['/admin/policies', 'Host policies'],
  ['/admin/approvals', 'Approvals'],
  ['/admin/audit', 'Audit'],
  ['/admin/browsers', 'Running browsers'],
];

/** What a page says above its content after a post: done, or why nothing changed. */
export interface Flash {
  notice?: string;
  error?: string;
}

/** The hidden field every console form carries. */
export const csrfField = (s: AdminSession) => html`<input type="hidden" name="csrf" value="${s.csrf}">`;

export function flashBlock(f: Flash = {}): Markup {
  return html`${f.notice ? html`<p class="notice" id="notice" role="status">${f.notice}</p>` : ''}${f.error ? html`<p class="error" id="error" role="alert">${f.error}</p>` : ''}`;
}

export function consolePage(r: Req, status: number, s: AdminSession, title: string, body: Markup, flash?: Flash, headers?: Record<string, string>) {
  const nav = NAV.map(([href, label]) => html`<a href="${href}">${label}</a>`);
  sendPage(
    r,
    status,
    `${title} · browserd admin`,
    html`<header><strong>browserd admin</strong>${nav}<form method="post" action="/admin/logout">${csrfField(s)}<button type="submit" id="logout">Log out</button></form></header><main><h1>${title}</h1>${flashBlock(flash)}${body}</main>`,
    headers,
  );
}

/** The login form. The key is typed here and posted once; it is never put back into any page. */
export function loginPage(r: Req, status: number, flash?: Flash, headers?: Record<string, string>) {
  sendPage(
    r,
    status,
    'Log in · browserd admin',
    html`<main><h1>browserd admin console</h1>${flashBlock(flash)}<form method="post" action="/admin/login" id="login"><div class="row"><label for="key">Admin key</label> <input type="password" id="key" name="key" autocomplete="off" required></div><p class="muted">The admin key (bda_&hellip;), not a user token. It is in the first-run credentials file; <code>browserd admin key</code> replaces it.</p><button type="submit">Log in</button></form></main>`,
    headers,
  );
}
