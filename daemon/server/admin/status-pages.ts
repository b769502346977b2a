/** Pages that only show: the overview, the audit log of every user, and the running browsers with their memory. */
import type { Platform } from '../../platform.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { html, type Markup } from './html.js';
import { formatBytes, treeMemory } from './process-memory.js';

export function overviewBody(env: Platform): Markup {
  const s = env.browserSettings.current();
  const users = env.users.list();
  return html`<table id="overview"><tbody>
<tr><th>users</th><td>${users.length} (${users.filter((u) => u.disabled).length} disabled)</td></tr>
<tr><th>browsers running</th><td>${env.pool.list().filter((b) => b.alive).length} of at most ${env.pool.maxBrowsers}</td></tr>
<tr><th>sign-up</th><td>${s.signup ? 'on' : 'off'}</td></tr>
<tr><th>MCP URL</th><td><code>${env.baseUrl()}/mcp</code></td></tr>
<tr><th>guide for agents</th><td><a href="/install.md">/install.md</a></td></tr>
</tbody></table>`;
}

/** Arguments as the audit stored them (already redacted there), cut so one entry cannot swamp the page. */
function argsText(args: unknown): string {
  const t = typeof args === 'string' ? args : JSON.stringify(args) ?? '';
  return t.length > 400 ? `${t.slice(0, 400)}…` : t;
}

export function auditBody(env: Platform, query: URLSearchParams): Markup {
  const limit = Number(query.get('limit') ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new BrowserdError('validation_error', 'limit must be a whole number from 1 to 1000', { next: 'Open /admin/audit?limit=100.' });
  const user = query.get('user') || undefined;
  const entries = user ? env.audit.page(user, { limit }).entries : env.audit.all(limit);
  const rows = entries.map(
    (e) => html`<tr><td>${e.at}</td><td>${e.user}</td><td>${e.tool}</td><td>${e.via}</td><td>${e.outcome}</td><td class="num">${e.ms}</td><td class="args">${argsText(e.args)}</td></tr>`,
  );
  return html`<form method="get" action="/admin/audit"><label for="audit-user">user</label> <input id="audit-user" name="user" value="${user ?? ''}"> <label for="audit-limit">limit</label> <input id="audit-limit" name="limit" value="${String(limit)}" size="5"> <button type="submit">Show</button></form>
<p class="muted">Newest first. Changes made in this console are listed under the user (admin).</p>
<table id="audit"><thead><tr><th>at</th><th>user</th><th>tool</th><th>via</th><th>outcome</th><th>ms</th><th>arguments</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export async function browsersBody(env: Platform): Promise<Markup> {
  const running = env.pool.list().filter((b) => b.alive);
  const rows = await Promise.all(
    running.map(async (b) => {
      const mem = b.pid ? await treeMemory(b.pid) : undefined;
      return html`<tr data-user="${b.opts.user}"><td>${b.opts.user}</td><td>${b.opts.profile ?? 'default'}</td><td class="num">${b.pid ?? ''}</td><td>${b.startedAt?.toISOString() ?? 'starting'}</td><td class="num tabs">${b.tabs.size}</td><td class="num">${mem?.processes ?? ''}</td><td class="num rss">${mem ? formatBytes(mem.rssBytes) : ''}</td><td class="num pss">${mem?.pssBytes !== undefined ? formatBytes(mem.pssBytes) : 'n/a'}</td></tr>`;
    }),
  );
  return html`<p class="muted">RSS adds up each process of the browser (shared pages counted in each); PSS shares them out, so it is the browser's fair part of the host's memory.</p>
<table id="browsers"><thead><tr><th>user</th><th>profile</th><th>pid</th><th>started</th><th>tabs</th><th>processes</th><th>RSS</th><th>PSS</th></tr></thead><tbody>${rows.length ? rows : html`<tr><td colspan="8" class="muted">no browser is running</td></tr>`}</tbody></table>`;
}
