/**
 * The users page and its changes: add a user (its token shown once, on the answer to that post only), replace a
 * token (the old one stops at once), disable (the token is refused everywhere, the user's browsers and timed CDP
 * sessions stop; nothing is deleted) and enable.
 */
import type { Platform } from '../../platform.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { ADMIN_ACTOR, auditedChange } from '../rest-call.js';
import { assertNewUserName } from '../user-name.js';
import { html, type Markup } from './html.js';
import { csrfField } from './layout.js';
import type { AdminSession } from './sessions.js';
import type { ServerDeps } from '../deps.js';

export function existingUser(env: Platform, name: string) {
  const u = env.users.get(name);
  if (!u) throw new BrowserdError('not_found', `no user ${name}`, { next: 'Pick a user from the list.' });
  return u;
}

/** A token shown once, with what to do with it. */
export function shownOnce(env: Platform, name: string, token: string): Markup {
  return html`<section id="secret"><h2>Token of ${name}</h2><p>Shown this once: copy it now. It goes in the header <code>Authorization: Bearer &lt;token&gt;</code> of <code>${env.baseUrl()}/mcp</code> and <code>/v1</code>.</p><code class="secret" id="new-token">${token}</code></section>`;
}

export function usersBody(env: Platform, s: AdminSession): Markup {
  const rows = env.users.list().map((u) => {
    const action = `/admin/users/${encodeURIComponent(u.id)}`;
    return html`<tr data-user="${u.id}"><td>${u.id}</td><td>${u.createdAt}</td><td class="state">${u.disabled ? 'disabled' : 'active'}</td><td>
<form method="post" action="${action}">${csrfField(s)}<input type="hidden" name="action" value="token"><button type="submit">Replace token</button></form>
<form method="post" action="${action}">${csrfField(s)}<input type="hidden" name="action" value="${u.disabled ? 'enable' : 'disable'}"><button type="submit">${u.disabled ? 'Enable' : 'Disable'}</button></form></td></tr>`;
  });
  return html`<h2>Add a user</h2><form method="post" action="/admin/users" id="add-user">${csrfField(s)}<label for="name">name</label> <input id="name" name="name" required> <button type="submit">Add user</button></form>
<h2>Users</h2><table id="users"><thead><tr><th>name</th><th>created</th><th>state</th><th>actions</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export async function addUser(env: Platform, form: URLSearchParams): Promise<{ name: string; token: string }> {
  const raw = form.get('name') ?? '';
  return auditedChange(env, ADMIN_ACTOR, 'admin.user_add', { name: raw.slice(0, 64), from: 'console' }, async () => {
    const name = assertNewUserName(env, raw);
    return { name, token: (await env.users.add(name)).token };
  });
}

/** A per-user action from the users page; answers what to say, and a token when one was made. */
export async function userAction(server: ServerDeps, name: string, form: URLSearchParams): Promise<{ notice: string; token?: string }> {
  const { env } = server;
  const action = form.get('action');
  existingUser(env, name);
  if (action === 'token') {
    const token = await auditedChange(env, ADMIN_ACTOR, 'admin.user_token', { name, from: 'console' }, () => env.users.replaceToken(name));
    return { notice: `Replaced the token of ${name}; the old one no longer works.`, token };
  }
  if (action === 'disable') {
    await auditedChange(env, ADMIN_ACTOR, 'admin.user_disable', { name, from: 'console' }, async () => {
      await env.users.update(name, { disabled: true });
      await server.stopAccount(name);
    });
    return { notice: `Disabled ${name}: its token is refused and its browsers are stopped.` };
  }
  if (action === 'enable') {
    await auditedChange(env, ADMIN_ACTOR, 'admin.user_enable', { name, from: 'console' }, () => env.users.update(name, { disabled: false }));
    return { notice: `Enabled ${name}: its token works again.` };
  }
  throw new BrowserdError('validation_error', `unknown action ${JSON.stringify(action)}`, { next: 'Use the buttons of the users page.' });
}
