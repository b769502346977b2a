/**
 * Per-user rules: the host policy (rules checked whole by assertHostRules, as every other writer does) and the
 * approvals and take-over switches (storage/users.ts update).
 */
import type { Platform } from '../../platform.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { assertHostRules, HOST_ACCESS } from '../../policy/host-policy.js';
import { ADMIN_ACTOR, auditedChange } from '../rest-call.js';
import { html, type Markup } from './html.js';
import { csrfField } from './layout.js';
import type { AdminSession } from './sessions.js';
import { existingUser } from './users-page.js';

export function policiesBody(env: Platform, s: AdminSession, selected: string | undefined): Markup {
  const users = env.users.list();
  const picker = html`<p>User: ${users.map((u) => html`<a href="/admin/policies?user=${encodeURIComponent(u.id)}"${u.id === selected ? html` aria-current="page"` : ''}>${u.id}</a> `)}</p>`;
  if (!selected) return html`${picker}<p class="muted">Pick a user to see and change the sites it may only read, may not open, or may change.</p>`;
  const user = existingUser(env, selected);
  const action = `/admin/policies/${encodeURIComponent(user.id)}`;
  const rules = env.policies.rules(user.id).map(
    (rule) => html`<tr><td>${rule.pattern}</td><td>${rule.access}</td><td><form method="post" action="${action}">${csrfField(s)}<input type="hidden" name="op" value="remove"><input type="hidden" name="pattern" value="${rule.pattern}"><button type="submit">Remove</button></form></td></tr>`,
  );
  return html`${picker}<h2>Host policy of ${user.id}</h2>
<table id="rules"><thead><tr><th>pattern</th><th>access</th><th></th></tr></thead><tbody>${rules.length ? rules : html`<tr><td colspan="3" class="muted">no rules: each tab's mode decides</td></tr>`}</tbody></table>
<h2>Add or replace a rule</h2><form method="post" action="${action}" id="add-rule">${csrfField(s)}<input type="hidden" name="op" value="set">
<div class="row"><label for="pattern">pattern</label> <input id="pattern" name="pattern" placeholder="example.com, *.example.com or *" required></div>
<div class="row"><label for="access">access</label> <select id="access" name="access">${HOST_ACCESS.map((a) => html`<option value="${a}">${a}</option>`)}</select></div>
<button type="submit">Save rule</button></form>`;
}

/** Sets or removes one rule; the whole new list is checked before it is stored. */
export async function changePolicy(env: Platform, name: string, form: URLSearchParams): Promise<string> {
  existingUser(env, name);
  const op = form.get('op');
  const pattern = (form.get('pattern') ?? '').trim();
  const access = form.get('access') ?? '';
  return auditedChange(env, ADMIN_ACTOR, 'admin.host_policy', { user: name, op, pattern: pattern.slice(0, 260), ...(op === 'set' ? { access: access.slice(0, 20) } : {}), from: 'console' }, async () => {
    const current = env.policies.rules(name);
    if (op === 'remove') {
      if (!(await env.policies.remove(name, pattern))) throw new BrowserdError('not_found', `no rule for ${pattern}`, { next: 'Remove a rule listed in the table.' });
      return `Removed the rule for ${pattern}.`;
    }
    if (op !== 'set') throw new BrowserdError('validation_error', `unknown op ${JSON.stringify(op)}`, { next: 'Use the forms of this page.' });
    const next = assertHostRules([...current.filter((r) => r.pattern !== pattern), { pattern, access }]);
    await env.policies.setRules(name, next);
    return `${pattern} is ${access} for ${name}.`;
  });
}

export function approvalsBody(env: Platform, s: AdminSession): Markup {
  const rows = env.users.list().map((u) => {
    const id = (k: string) => `${k}-${u.id}`;
    return html`<tr data-user="${u.id}"><td>${u.id}</td><td colspan="3"><form method="post" action="/admin/approvals/${encodeURIComponent(u.id)}">${csrfField(s)}
<label for="${id('approvals')}">approvals</label> <input type="checkbox" id="${id('approvals')}" name="approvals"${u.approvals ? html` checked` : ''}>
<label for="${id('takeover')}">takeover</label> <input type="checkbox" id="${id('takeover')}" name="takeover"${u.takeover ? html` checked` : ''}>
<button type="submit">Save</button></form></td></tr>`;
  });
  return html`<p class="muted">approvals on: sensitive actions answer needsApproval instead of running. takeover on: live links let a person use mouse and keyboard; off: view only.</p>
<table id="approvals"><thead><tr><th>user</th><th colspan="3">switches</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export async function changeApprovals(env: Platform, name: string, form: URLSearchParams): Promise<string> {
  existingUser(env, name);
  const patch = { approvals: form.has('approvals'), takeover: form.has('takeover') };
  await auditedChange(env, ADMIN_ACTOR, 'admin.user_policy', { user: name, ...patch, from: 'console' }, () => env.users.update(name, patch));
  return `${name}: approvals ${patch.approvals ? 'on' : 'off'}, takeover ${patch.takeover ? 'on' : 'off'}.`;
}
