/**
 * The vault over REST. Values are write-only: a PUT takes them, nothing ever answers one (the one exception is
 * the secret of a new SMS inbox, which the daemon itself makes and must hand to the user once). Every change
 * and every refused change is audited by entry and field names only.
 */
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import type { ImapInbox, VaultEntryInfo } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';
import { normaliseTotp } from '../vault/totp.js';
import { sendJson, type Req } from '../http/exchange.js';
import { auditedChange, type Handler } from './rest-call.js';

export const MAX_FIELDS = 50;

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });
const SHAPE_NEXT = 'Send {"loginUrl"?: "https://...", "fields": {"password": "..."}}, or {"kind": "otp_inbox", "imap": {"host", "port", "user", "password", "tls"}}, or {"kind": "otp_inbox", "sms": true}.';

/** A PUT body that passed the route's VaultPutBody schema (route-schemas.ts): its shape is settled. */
type VaultPutBody =
  | { kind?: 'login'; loginUrl?: string; fields?: Record<string, string> }
  | { kind: 'otp_inbox'; imap: ImapInbox & { tls?: boolean } }
  | { kind: 'otp_inbox'; sms: true };

type VaultChange =
  | { kind: 'login'; loginUrl?: string; fields: Record<string, string> }
  | { kind: 'imap'; imap: ImapInbox }
  | { kind: 'sms' };

/** What no schema says of a login URL: that it parses, is http(s) and carries no credentials. */
function loginUrl(v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw bad('loginUrl is not a URL', 'Send an absolute http(s) URL, e.g. "https://github.com/login".');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw bad(`loginUrl must be http or https, not ${u.protocol}`, 'Send the http(s) page where you sign in.');
  if (u.username || u.password) throw bad('loginUrl must not carry a user name or password', 'Put credentials in fields, and the bare sign-in URL in loginUrl.');
  return u.toString();
}

/**
 * A checked PUT body as one change, with what its schema cannot say (a login URL's scheme, a totp secret, the
 * field count with the entry's own); nothing is written before this passes.
 */
function vaultChange(body: VaultPutBody, existingFields: string[]): VaultChange {
  if ('sms' in body) return { kind: 'sms' };
  if ('imap' in body) return { kind: 'imap', imap: { ...body.imap, tls: body.imap.tls ?? true } };
  if (body.loginUrl === undefined && body.fields === undefined) throw bad('nothing to change: send fields, loginUrl or both', SHAPE_NEXT);
  const fields: Record<string, string> = {};
  for (const [name, v] of Object.entries(body.fields ?? {})) fields[name] = name === 'totp' ? normaliseTotp(v) : v;
  const total = new Set([...existingFields, ...Object.keys(fields)]).size;
  if (total > MAX_FIELDS) throw bad(`an entry holds at most ${MAX_FIELDS} fields (this change would make ${total})`, 'Delete fields you no longer need, or use another entry.');
  return { kind: 'login', ...(body.loginUrl !== undefined ? { loginUrl: loginUrl(body.loginUrl) } : {}), fields };
}

/** What an answer may say about an entry: names and where, never a value. */
function shown(info: VaultEntryInfo, base: string) {
  const { smsId, ...rest } = info;
  return { ...rest, ...(smsId ? { forwardUrl: smsForwardUrl(base, smsId) } : {}) };
}

export const smsForwardUrl = (base: string, smsId: string) => `${base}/v1/inbox/sms/${encodeURIComponent(smsId)}`;

/** The address SMS forwarders should post to: the public URL when set, else the one this caller reached. */
function baseUrl(env: Platform, r: Req): string {
  // Without a public URL, the address the caller used (its Host passed the origin check) reaches this daemon.
  const host = r.headers['host'];
  return env.cfg.publicUrl || !host ? env.baseUrl() : `http://${host}`;
}

function unlocked(env: Platform) {
  const problem = env.vault.problem;
  if (problem) throw new BrowserdError('not_configured', `the vault is locked: ${problem.message}`, { next: problem.next });
}

export function vaultHandlers(env: Platform): Record<string, Handler> {
  const audited = <T>(user: UserRecord, tool: string, args: Record<string, unknown>, change: () => Promise<T>) => auditedChange(env, user, tool, args, change);

  return {
    'GET /v1/vault': async (r, u) => {
      unlocked(env);
      const base = baseUrl(env, r);
      sendJson(r, 200, { ok: true, entries: env.vault.list(u!.id).map((e) => shown(e, base)) });
    },

    // Each change opens its audited change first and checks its path and body (the route's schemas) inside it,
    // so a refused one is audited too, by entry and field names only.
    'PUT /v1/vault/{name}': async (r, u, _raw, input) => {
      const user = u!;
      const name = input.params.name!;
      const args: Record<string, unknown> = { name: name.slice(0, 200) };
      await audited(user, 'vault_put', args, async () => {
        input.checked();
        await input.json();
        unlocked(env);
        const change = vaultChange(await input.body<VaultPutBody>(), env.vault.info(user.id, name)?.fields ?? []);
        if (change.kind === 'login') {
          Object.assign(args, { kind: 'login', fields: Object.keys(change.fields), ...(change.loginUrl ? { loginHost: new URL(change.loginUrl).host } : {}) });
          const info = await env.vault.setFields(user.id, name, { loginUrl: change.loginUrl, fields: change.fields });
          return sendJson(r, 200, { ok: true, entry: shown(info, baseUrl(env, r)) });
        }
        if (change.kind === 'imap') {
          Object.assign(args, { kind: 'otp_inbox', inbox: 'imap', imapHost: `${change.imap.host}:${change.imap.port}` });
          const info = await env.vault.setInbox(user.id, name, { imap: change.imap });
          return sendJson(r, 200, { ok: true, entry: shown(info, baseUrl(env, r)) });
        }
        // Both are fresh on every PUT: re-creating the inbox is how a leaked forwarding secret is replaced.
        const smsId = randomBytes(16).toString('base64url');
        const smsSecret = randomBytes(32).toString('base64url');
        Object.assign(args, { kind: 'otp_inbox', inbox: 'sms' });
        const info = await env.vault.setInbox(user.id, name, { smsId, smsSecret });
        // Texts sent to the replaced forwarding address are not the new inbox's to read.
        await env.smsInbox.forget(user.id, name);
        const forwardUrl = smsForwardUrl(baseUrl(env, r), smsId);
        sendJson(r, 200, {
          ok: true,
          entry: shown(info, baseUrl(env, r)),
          forwardUrl,
          secret: smsSecret,
          note: 'Shown once: set your SMS forwarder to POST each message to forwardUrl with the header Authorization: Bearer <secret>. PUT this entry again to replace both.',
        });
      });
    },

    'DELETE /v1/vault/{name}': async (r, u, _raw, input) => {
      const user = u!;
      const name = input.params.name!;
      await audited(user, 'vault_delete', { name: name.slice(0, 200) }, async () => {
        input.checked();
        unlocked(env);
        if (!(await env.vault.deleteEntry(user.id, name))) throw new BrowserdError('not_found', `no vault entry ${name}`, { next: 'List your entries with GET /v1/vault.' });
        // A deleted inbox keeps no texts: an entry made again under the name starts empty.
        await env.smsInbox.forget(user.id, name);
        sendJson(r, 200, { ok: true, deleted: name });
      });
    },

    'DELETE /v1/vault/{name}/fields/{field}': async (r, u, _raw, input) => {
      const user = u!;
      const { name, field } = input.params as { name: string; field: string };
      await audited(user, 'vault_delete_field', { name: name.slice(0, 200), field: field.slice(0, 64) }, async () => {
        input.checked();
        unlocked(env);
        if (!(await env.vault.deleteField(user.id, name, field))) {
          throw new BrowserdError('not_found', env.vault.info(user.id, name) ? `vault entry ${name} has no field ${field}` : `no vault entry ${name}`, { next: 'List your entries and their fields with GET /v1/vault.' });
        }
        sendJson(r, 200, { ok: true, deleted: { name, field } });
      });
    },
  };
}
