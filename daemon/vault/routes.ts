/**
 * The vault over REST. Values are write-only: a PUT takes them, nothing ever answers one (the one exception is
 * the secret of a new SMS inbox, which the daemon itself makes and must hand to the user once). Every change
 * and every refused change is audited by entry and field names only.
 */
import { routed } from '../../storage/routing-key.js';
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import type { ImapInbox, VaultEntryInfo } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';
import { normaliseTotp } from './totp.js';
import { sendJson, type Req } from '../http/exchange.js';
import { auditedChange, type Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import { Type } from '@sinclair/typebox';
import { VAULT_FIELD, VAULT_NAME } from '../../storage/vault.js';
import { group, hinted } from '../server/route-schemas.js';

// ---- vault: path parameters and the body of a PUT (values write-only: a refusal never quotes one)
export const MAX_VALUE_CHARS = 4096;
export const MAX_VAULT_URL_CHARS = 2048;
const VAULT_SHAPE_NEXT = 'Send {"loginUrl"?: "https://...", "fields": {"password": "..."}}, or {"kind": "otp_inbox", "imap": {"host", "port", "user", "password", "tls"}}, or {"kind": "otp_inbox", "sms": true}.';
const vaultName = hinted(Type.String({ pattern: VAULT_NAME.source, description: 'The site\'s host, e.g. github.com' }), {
  what: 'a vault entry name',
  next: 'Use the site\'s host, e.g. "github.com": letters, digits, ".", "-", "_" or ":", at most 200.',
});
const FIELD_NEXT = 'Use a name such as username, password, card, api_key or totp: a letter, then letters, digits, "_" or "-", at most 64.';
const vaultField = hinted(Type.String({ pattern: VAULT_FIELD.source }), { what: 'a field name', next: FIELD_NEXT });
export const VaultPath = group({ name: vaultName });
export const VaultFieldPath = group({ name: vaultName, field: vaultField });

const secret = (description: string) => hinted(Type.String({ minLength: 1, maxLength: MAX_VALUE_CHARS, description }), { next: 'Send the value itself as a JSON string of 1 to 4096 characters, nothing more.' });
const VaultLogin = Type.Object(
  {
    kind: Type.Optional(Type.Literal('login')),
    loginUrl: Type.Optional(hinted(Type.String({ maxLength: MAX_VAULT_URL_CHARS, description: 'The http(s) page where you sign in.' }), { next: 'Send the page where you sign in, e.g. "https://github.com/login".' })),
    fields: Type.Optional(
      hinted(Type.Record(Type.String({ pattern: VAULT_FIELD.source }), secret('A value to keep (write-only; a totp takes a base32 secret or an otpauth:// URI).'), { additionalProperties: false, maxProperties: 50, description: 'Field name to value; merged into what the entry holds (at most 50 fields in all).' }), { next: FIELD_NEXT }),
    ),
  },
  { additionalProperties: false, description: 'A login entry: fields are merged into what the entry holds; a totp value is a base32 secret or an otpauth://totp/ URI.' },
);
const VaultImap = Type.Object(
  {
    kind: Type.Literal('otp_inbox'),
    imap: Type.Object(
      {
        host: hinted(Type.String({ pattern: '^[A-Za-z0-9.:[\\]-]{1,253}$' }), { what: 'a host name or address', next: 'Send e.g. "imap.example.com".' }),
        port: hinted(Type.Integer({ minimum: 1, maximum: 65535 }), { next: 'Send 993 for IMAP over TLS, 143 otherwise.' }),
        user: hinted(Type.String({ minLength: 1, maxLength: 320 }), { next: 'Send the login of the mailbox, usually its address.' }),
        password: secret('The mailbox password (write-only).'),
        tls: Type.Optional(hinted(Type.Boolean({ default: true }), { next: 'Send true for IMAP over TLS (port 993).' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'An e-mail inbox that one-time codes arrive in.' },
);
const VaultSms = Type.Object(
  { kind: Type.Literal('otp_inbox'), sms: Type.Literal(true) },
  { additionalProperties: false, description: 'An SMS inbox for a forwarder app; the answer carries forwardUrl and secret, once. Putting it again replaces both.' },
);
export const VaultPutBody = hinted(Type.Union([VaultLogin, VaultImap, VaultSms]), { next: VAULT_SHAPE_NEXT });


export const VAULT_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/vault', auth: 'user', summary: "The caller's vault entries: names, kinds, field names and login URLs, never a value" },
  { method: 'PUT', path: '/v1/vault/{name}', auth: 'user', summary: 'Create or update a vault entry: merge login fields, or set an otp_inbox (IMAP, or SMS: answers its forwarding URL and secret once)', params: VaultPath, body: { schema: VaultPutBody, maxBytes: 512 * 1024, emptyIsAbsent: true }, refusalsAudited: true },
  { method: 'DELETE', path: '/v1/vault/{name}', auth: 'user', summary: 'Delete a vault entry', params: VaultPath, refusalsAudited: true },
  { method: 'DELETE', path: '/v1/vault/{name}/fields/{field}', auth: 'user', summary: 'Delete one field of a login entry', params: VaultFieldPath, refusalsAudited: true },
];


export const MAX_FIELDS = 50;

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });
const SHAPE_NEXT = 'Send {"loginUrl"?: "https://...", "fields": {"password": "..."}}, or {"kind": "otp_inbox", "imap": {"host", "port", "user", "password", "tls"}}, or {"kind": "otp_inbox", "sms": true}.';

/** A PUT body that passed the route's VaultPutBody schema (above): its shape is settled. */
type VaultPutArgs =
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
function vaultChange(body: VaultPutArgs, existingFields: string[]): VaultChange {
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
        const change = vaultChange(await input.body<VaultPutArgs>(), env.vault.info(user.id, name)?.fields ?? []);
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
        // The user's routing key first: a fleet's router sends the forwarder's posts to their host (routing-key.ts).
        const smsId = routed(env.users.routingKey(user.id), randomBytes(16).toString('base64url'));
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
