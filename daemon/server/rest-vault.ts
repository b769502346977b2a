/**
 * The vault over REST. Values are write-only: a PUT takes them, nothing ever answers one (the one exception is
 * the secret of a new SMS inbox, which the daemon itself makes and must hand to the user once). Every change
 * and every refused change is audited by entry and field names only.
 */
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { VAULT_FIELD, VAULT_NAME, type ImapInbox, type VaultEntryInfo } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';
import { normaliseTotp } from '../vault/totp.js';
import { parseJsonBounded, readBody, sendJson, type Req } from './http.js';
import { auditedChange, type Handler } from './rest-call.js';

/** Plenty for ~50 fields of 4096 characters; a vault write is small. */
const MAX_VAULT_BODY = 512 * 1024;
export const MAX_VALUE_CHARS = 4096;
export const MAX_FIELDS = 50;
const MAX_URL_CHARS = 2048;

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });
const SHAPE_NEXT = 'Send {"loginUrl"?: "https://...", "fields": {"password": "..."}}, or {"kind": "otp_inbox", "imap": {"host", "port", "user", "password", "tls"}}, or {"kind": "otp_inbox", "sms": true}.';

type VaultChange =
  | { kind: 'login'; loginUrl?: string; fields: Record<string, string> }
  | { kind: 'imap'; imap: ImapInbox }
  | { kind: 'sms' };

function segment(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw bad(`the ${what} "${raw}" is not a valid URL path segment`, 'Percent-encode it correctly.');
  }
}

function entryName(raw: string): string {
  const name = segment(raw, 'entry name');
  if (!VAULT_NAME.test(name)) throw bad(`"${name.slice(0, 80)}" is not a vault entry name`, 'Use the site\'s host, e.g. "github.com": letters, digits, ".", "-", "_" or ":", at most 200.');
  return name;
}

function fieldName(name: string): string {
  if (!VAULT_FIELD.test(name)) throw bad(`"${name.slice(0, 80)}" is not a field name`, 'Use a name such as username, password, card, api_key or totp: a letter, then letters, digits, "_" or "-", at most 64.');
  return name;
}

/** A value to keep; its words never quote it, so an answer or log line cannot carry it. */
function secretValue(v: unknown, what: string): string {
  if (typeof v !== 'string') throw bad(`${what} must be a string`, 'Send every value as a JSON string.');
  if (v.length < 1 || v.length > MAX_VALUE_CHARS) throw bad(`${what} must be 1 to ${MAX_VALUE_CHARS} characters (it has ${v.length})`, 'Send the value itself, nothing more.');
  return v;
}

function onlyKeys(obj: Record<string, unknown>, allowed: string[], where: string) {
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length) throw bad(`${where} has unknown keys: ${extra.map((k) => k.slice(0, 40)).join(', ')}`, SHAPE_NEXT);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function loginUrl(v: unknown): string {
  if (typeof v !== 'string' || v.length > MAX_URL_CHARS) throw bad(`loginUrl must be a URL of at most ${MAX_URL_CHARS} characters`, 'Send the page where you sign in, e.g. "https://github.com/login".');
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

function imapInbox(v: unknown): ImapInbox {
  if (!isObject(v)) throw bad('imap must be an object', SHAPE_NEXT);
  onlyKeys(v, ['host', 'port', 'user', 'password', 'tls'], 'imap');
  if (typeof v.host !== 'string' || !/^[A-Za-z0-9.:[\]-]{1,253}$/.test(v.host)) throw bad('imap.host must be a host name or address', 'Send e.g. "imap.example.com".');
  if (typeof v.port !== 'number' || !Number.isInteger(v.port) || v.port < 1 || v.port > 65535) throw bad('imap.port must be a port number (1-65535)', 'Send 993 for IMAP over TLS, 143 otherwise.');
  if (typeof v.user !== 'string' || v.user.length < 1 || v.user.length > 320) throw bad('imap.user must be the mailbox login, 1 to 320 characters', 'Send the login of the mailbox, usually its address.');
  if (v.tls !== undefined && typeof v.tls !== 'boolean') throw bad('imap.tls must be true or false', 'Send true for IMAP over TLS (port 993).');
  return { host: v.host, port: v.port, user: v.user, password: secretValue(v.password, 'imap.password'), tls: v.tls ?? true };
}

/** The body of a PUT as one checked change, or a validation_error; nothing is written before this passes. */
export function parseVaultChange(body: unknown, existingFields: string[]): VaultChange {
  if (!isObject(body)) throw bad('the body must be a JSON object', SHAPE_NEXT);
  if (body.kind === 'otp_inbox') {
    onlyKeys(body, ['kind', 'imap', 'sms'], 'an otp_inbox body');
    if (body.imap !== undefined && body.sms !== undefined) throw bad('an otp_inbox takes imap or sms, not both', SHAPE_NEXT);
    if (body.sms !== undefined) {
      if (body.sms !== true) throw bad('sms must be true', 'Send {"kind": "otp_inbox", "sms": true}.');
      return { kind: 'sms' };
    }
    if (body.imap === undefined) throw bad('an otp_inbox needs imap or sms', SHAPE_NEXT);
    return { kind: 'imap', imap: imapInbox(body.imap) };
  }
  if (body.kind !== undefined && body.kind !== 'login') throw bad('kind must be "login" (the default) or "otp_inbox"', SHAPE_NEXT);
  onlyKeys(body, ['kind', 'loginUrl', 'fields'], 'a login body');
  if (body.loginUrl === undefined && body.fields === undefined) throw bad('nothing to change: send fields, loginUrl or both', SHAPE_NEXT);
  if (body.fields !== undefined && !isObject(body.fields)) throw bad('fields must be an object of field name to value', SHAPE_NEXT);
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body.fields ?? {})) {
    fieldName(name);
    const v = secretValue(value, `the value of ${name}`);
    fields[name] = name === 'totp' ? normaliseTotp(v) : v;
  }
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

async function readVaultBody(r: Req): Promise<unknown> {
  const buf = await readBody(r, MAX_VAULT_BODY);
  return buf.length ? parseJsonBounded(buf.toString('utf8')) : undefined;
}

export function vaultHandlers(env: Platform): Record<string, Handler> {
  const audited = <T>(user: UserRecord, tool: string, args: Record<string, unknown>, change: () => Promise<T>) => auditedChange(env, user, tool, args, change);

  return {
    'GET /v1/vault': async (r, u) => {
      unlocked(env);
      const base = baseUrl(env, r);
      sendJson(r, 200, { ok: true, entries: env.vault.list(u!.id).map((e) => shown(e, base)) });
    },

    'PUT /v1/vault/{name}': async (r, u, [raw]) => {
      const user = u!;
      const args: Record<string, unknown> = { name: segment(raw, 'entry name').slice(0, 200) };
      await audited(user, 'vault_put', args, async () => {
        const name = entryName(raw);
        const body = await readVaultBody(r);
        unlocked(env);
        const change = parseVaultChange(body, env.vault.info(user.id, name)?.fields ?? []);
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

    'DELETE /v1/vault/{name}': async (r, u, [raw]) => {
      const user = u!;
      await audited(user, 'vault_delete', { name: segment(raw, 'entry name').slice(0, 200) }, async () => {
        const name = entryName(raw);
        unlocked(env);
        if (!(await env.vault.deleteEntry(user.id, name))) throw new BrowserdError('not_found', `no vault entry ${name}`, { next: 'List your entries with GET /v1/vault.' });
        // A deleted inbox keeps no texts: an entry made again under the name starts empty.
        await env.smsInbox.forget(user.id, name);
        sendJson(r, 200, { ok: true, deleted: name });
      });
    },

    'DELETE /v1/vault/{name}/fields/{field}': async (r, u, [rawName, rawField]) => {
      const user = u!;
      const field = segment(rawField, 'field name');
      await audited(user, 'vault_delete_field', { name: segment(rawName, 'entry name').slice(0, 200), field: field.slice(0, 64) }, async () => {
        const name = entryName(rawName);
        fieldName(field);
        unlocked(env);
        if (!(await env.vault.deleteField(user.id, name, field))) {
          throw new BrowserdError('not_found', env.vault.info(user.id, name) ? `vault entry ${name} has no field ${field}` : `no vault entry ${name}`, { next: 'List your entries and their fields with GET /v1/vault.' });
        }
        sendJson(r, 200, { ok: true, deleted: { name, field } });
      });
    },
  };
}
