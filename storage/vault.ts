/**
 * The vault: per-user named entries whose values are sealed at rest (seal.ts) and never leave the daemon.
 * Listing gives names, kinds and field names only; values are read by the daemon's own vault services (to
 * fill a field, compute a code, read an inbox) and by the redactor, which must know them to scrub them.
 */
import type { Db } from './db.js';
import type { Sealer } from './seal.js';
import { SealedTable } from './sealed-table.js';
import type { VaultKeyState } from './vault-key.js';
import { BrowserdError } from '../protocol/errors.js';

/** Throws when a login entry may not take this name or login URL; `prev` is the entry as stored, if any. */
export type LoginWriteCheck = (name: string, prev: { loginUrl?: string; fields: string[] } | undefined, loginUrl: string | undefined) => void;

export type VaultKind = 'login' | 'otp_inbox';

export interface ImapInbox {
  host: string;
  port: number;
  user: string;
  password: string;
  tls: boolean;
}

/** The sealed part of an entry: every value the agent must never see. */
export interface VaultSecrets {
  fields: Record<string, string>;
  imap?: ImapInbox;
  /** SMS inboxes: the secret a forwarder presents to post messages into this inbox. */
  smsSecret?: string;
}

/** What may be shown about an entry: no value, ever. */
export interface VaultEntryInfo {
  name: string;
  kind: VaultKind;
  loginUrl?: string;
  fields: string[];
  /** For otp_inbox entries: how codes arrive. */
  inbox?: 'imap' | 'sms';
  /** For IMAP inboxes, where (never the password). */
  imapHost?: string;
  /** For SMS inboxes: the id in the forwarding URL (not a secret; the forwarder also presents smsSecret). */
  smsId?: string;
  updatedAt: string;
}

/** Entry names: usually a host; letters, digits, dot, dash, underscore, colon. */
export const VAULT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** Field names: an identifier such as password, username, card, api_key, totp. */
export const VAULT_FIELD = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** SMS inbox id -> owner. User names start with a letter or digit, so these keys sort apart from entries. */
const smsKey = (id: string) => `\u0001sms\u0000${id}`;

export class VaultStore {
  /** Every value of a user, for scrubbing output; rebuilt after each change. */
  private valueCache = new Map<string, string[]>();

  private entries: SealedTable<VaultEntryInfo, VaultSecrets>;

  /**
   * `checkLoginWrite` is the rule binding a login entry to its site (daemon/vault/site-match.ts, given by the
   * composition root: storage/ knows no daemon code). It throws to refuse a name or login URL.
   */
  constructor(private db: Db, private keyState: VaultKeyState, private checkLoginWrite: LoginWriteCheck) {
    this.entries = new SealedTable(db, db.vault, 'vault', () => this.sealer());
  }

  /** Why the vault is locked, or undefined when it is open. */
  get problem(): { message: string; next: string } | undefined {
    return this.keyState.ok ? undefined : { message: this.keyState.message, next: this.keyState.next };
  }

  /** Throws not_configured, with the key's problem and what to do, while the vault is locked. */
  requireOpen(): void {
    this.sealer();
  }

  private sealer(): Sealer {
    if (this.keyState.ok) return this.keyState.sealer;
    throw new BrowserdError('not_configured', this.keyState.message, { next: this.keyState.next });
  }

  /** The vault key's sealer for the other sealed stores (saved sessions); not_configured while the vault is locked. */
  keySealer(): Sealer {
    return this.sealer();
  }

  list(user: string): VaultEntryInfo[] {
    return this.entries.list(user);
  }

  info(user: string, name: string): VaultEntryInfo | undefined {
    return this.entries.info(user, name);
  }

  /** The entry's values, for the daemon's own use (filling, codes, inboxes). Never for a response. */
  secrets(user: string, name: string): VaultSecrets | undefined {
    return this.entries.open(user, name);
  }

  /**
   * Merges fields into a login entry (creating it), and sets its login URL when given. The last line of the
   * entry's binding to its site: a name or login URL that would let its values reach another site is refused
   * here whoever writes (site-match.ts says which), before anything changes.
   */
  async setFields(user: string, name: string, change: { loginUrl?: string; fields?: Record<string, string> }): Promise<VaultEntryInfo> {
    for (const [field, value] of Object.entries(change.fields ?? {})) wellFormed(value, `the value of ${field}`);
    const prev = this.entries.info(user, name);
    if (prev && prev.kind !== 'login') throw new BrowserdError('validation_error', `vault entry ${name} is an ${prev.kind}, not a login`, { next: 'Delete it first, or pick another name.' });
    this.checkLoginWrite(name, prev, change.loginUrl);
    const secrets: VaultSecrets = (prev && this.entries.open(user, name)) || { fields: {} };
    Object.assign(secrets.fields, change.fields ?? {});
    const info: VaultEntryInfo = {
      name,
      kind: 'login',
      ...((change.loginUrl ?? prev?.loginUrl) ? { loginUrl: change.loginUrl ?? prev?.loginUrl } : {}),
      fields: Object.keys(secrets.fields).sort(),
      updatedAt: new Date().toISOString(),
    };
    await this.write(user, info, secrets);
    return info;
  }

  /** Creates or replaces an otp_inbox entry. */
  async setInbox(user: string, name: string, inbox: { imap: ImapInbox } | { smsId: string; smsSecret: string }): Promise<VaultEntryInfo> {
    if ('imap' in inbox) for (const k of ['host', 'user', 'password'] as const) wellFormed(inbox.imap[k], `imap.${k}`);
    this.sealer();
    const prev = this.entries.info(user, name);
    if (prev && prev.kind !== 'otp_inbox') throw new BrowserdError('validation_error', `vault entry ${name} is a login, not an otp_inbox`, { next: 'Delete it first, or pick another name.' });
    const secrets: VaultSecrets = 'imap' in inbox ? { fields: {}, imap: inbox.imap } : { fields: {}, smsSecret: inbox.smsSecret };
    const info: VaultEntryInfo = {
      name,
      kind: 'otp_inbox',
      fields: [],
      inbox: 'imap' in inbox ? 'imap' : 'sms',
      ...('imap' in inbox ? { imapHost: `${inbox.imap.host}:${inbox.imap.port}` } : { smsId: inbox.smsId }),
      updatedAt: new Date().toISOString(),
    };
    if (prev?.smsId && prev.smsId !== info.smsId) await this.db.vault.remove(smsKey(prev.smsId));
    if (info.smsId) await this.db.vault.put(smsKey(info.smsId), { user, name });
    await this.write(user, info, secrets);
    return info;
  }

  /** The owner of an SMS inbox id, for the forwarding endpoint (which then checks the inbox's secret). */
  findSmsInbox(id: string): { user: string; name: string } | undefined {
    return this.db.vault.get(smsKey(id)) as { user: string; name: string } | undefined;
  }

  async deleteEntry(user: string, name: string): Promise<boolean> {
    const prev = this.entries.info(user, name);
    if (!prev) return false;
    if (prev.smsId) await this.db.vault.remove(smsKey(prev.smsId));
    await this.entries.remove(user, name);
    this.valueCache.delete(user);
    return true;
  }

  /** Removes one field; false when the entry or field does not exist. */
  async deleteField(user: string, name: string, field: string): Promise<boolean> {
    const prev = this.entries.info(user, name);
    if (!prev || prev.kind !== 'login' || !prev.fields.includes(field)) return false;
    const secrets = this.entries.open(user, name)!;
    delete secrets.fields[field];
    await this.write(user, { ...prev, fields: Object.keys(secrets.fields).sort(), updatedAt: new Date().toISOString() }, secrets);
    return true;
  }

  /**
   * Every secret value of the user (field values, inbox passwords and SMS secrets), longest first so a value
   * that contains another is scrubbed whole. Empty when the vault is locked: nothing could have been filled.
   */
  /** Drops what is kept in memory of the user's values (their rows were replaced or removed by a move). */
  forget(user: string): void {
    this.valueCache.delete(user);
  }

  values(user: string): string[] {
    if (!this.keyState.ok) return [];
    const cached = this.valueCache.get(user);
    if (cached) return cached;
    const all = new Set<string>();
    for (const info of this.list(user)) {
      const s = this.secrets(user, info.name);
      if (!s) continue;
      for (const v of Object.values(s.fields)) all.add(v);
      if (s.imap) all.add(s.imap.password);
      if (s.smsSecret) all.add(s.smsSecret);
    }
    const list = [...all].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
    this.valueCache.set(user, list);
    return list;
  }

  private async write(user: string, info: VaultEntryInfo, secrets: VaultSecrets) {
    await this.entries.put(user, info, secrets);
    this.valueCache.delete(user);
  }
}

/** A lone UTF-16 surrogate: JSON carries one escaped, but no page can be given it and UTF-8 cannot store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Refuses a value that is not well-formed text, naming where it was (never the value). */
function wellFormed(value: string, what: string): void {
  if (LONE_SURROGATE.test(value)) throw new BrowserdError('validation_error', `${what} is not well-formed text (it holds a lone UTF-16 surrogate)`, { next: 'Send the value as it is typed: text that UTF-8 can carry.' });
}
