/**
 * Text messages an SMS forwarder posted into a user's otp_inbox entry. Each is sealed under the vault key
 * and bound to its user, inbox and row, kept only minutes (a one-time code is worthless after that, and a
 * text message may hold other private things), and announced to waiters in this process at once.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';
import { SealError, type Sealed } from './seal.js';
import type { VaultKeyState } from './vault-key.js';
import { BrowserdError } from '../protocol/errors.js';
import { range } from './key-range.js';

export interface SmsMessage {
  from?: string;
  text: string;
  /** When the phone says it received the message (ISO), if the forwarder told us. */
  receivedAt?: string;
  /** When the daemon received it (ms since the epoch): the time waiters compare with. */
  at: number;
}

interface StoredSms {
  at: number;
  sealed: Sealed;
}

/** About as long as sites keep a texted code valid. */
export const SMS_KEEP_MS = 15 * 60 * 1000;
/** A forwarder stuck in a loop must not fill the disk: only the newest messages of an inbox are kept. */
export const SMS_MAX_PER_INBOX = 50;

const prefix = (user: string, inbox: string) => `${user}\u0000${inbox}\u0000`;
// Arrival time in fixed-width base 36 keeps an inbox's rows in time order; the random tail keeps two
// messages of the same millisecond apart.
const rowKey = (user: string, inbox: string, at: number) => `${prefix(user, inbox)}${at.toString(36).padStart(10, '0')}\u0000${randomBytes(6).toString('hex')}`;
const bound = (key: string) => `sms:${key}`;

export class SmsInboxStore {
  private events = new EventEmitter();
  private pruneTimer?: NodeJS.Timeout;

  constructor(
    private db: Db,
    private keyState: VaultKeyState,
    private keepMs = SMS_KEEP_MS,
  ) {
    // Waiters of many tool calls may watch one inbox at once.
    this.events.setMaxListeners(0);
    void this.prune().catch(() => undefined);
  }

  private sealer() {
    if (this.keyState.ok) return this.keyState.sealer;
    throw new BrowserdError('not_configured', this.keyState.message, { next: this.keyState.next });
  }

  /** Stores a message (durably: the forwarder is told 202 only after this) and wakes the inbox's waiters. */
  async add(user: string, inbox: string, msg: Omit<SmsMessage, 'at'>, now = Date.now()): Promise<void> {
    const key = rowKey(user, inbox, now);
    const stored: StoredSms = { at: now, sealed: this.sealer().sealJson({ ...msg, at: now } satisfies SmsMessage, bound(key)) };
    await this.db.smsMessages.put(key, stored);
    await this.trim(user, inbox);
    await this.db.flushed();
    this.schedulePrune();
    this.events.emit(prefix(user, inbox));
  }

  /** The inbox's messages younger than the keep time, newest first. (A reverse range starts at its high end.) */
  list(user: string, inbox: string, now = Date.now()): SmsMessage[] {
    const p = prefix(user, inbox);
    const out: SmsMessage[] = [];
    const sealer = this.sealer();
    for (const { key, value } of range(this.db.smsMessages, { start: `${p}\uffff`, end: p, reverse: true })) {
      const row = value as StoredSms;
      if (now - row.at > this.keepMs) break;
      try {
        out.push(sealer.openJson<SmsMessage>(row.sealed, bound(key)));
      } catch (e) {
        // A row that does not open under its own key was moved from another inbox or altered: never a code source.
        if (!(e instanceof SealError)) throw e;
      }
    }
    return out;
  }

  /** Calls `listener` after each new message in the inbox; returns the function that stops it. */
  onMessage(user: string, inbox: string, listener: () => void): () => void {
    const name = prefix(user, inbox);
    this.events.on(name, listener);
    return () => this.events.off(name, listener);
  }

  /** Forgets every message of an inbox (its entry was deleted or replaced). */
  async forget(user: string, inbox: string): Promise<void> {
    const p = prefix(user, inbox);
    for (const { key } of [...range(this.db.smsMessages, { start: p, end: `${p}\uffff` }, false)]) await this.db.smsMessages.remove(key);
    await this.db.flushed();
  }

  /** Removes every message older than the keep time, of every user. */
  async prune(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const { key, value } of this.db.smsMessages.getRange({})) {
      if (now - (value as StoredSms).at > this.keepMs) {
        await this.db.smsMessages.remove(key as string);
        removed++;
      }
    }
    return removed;
  }

  private async trim(user: string, inbox: string) {
    const p = prefix(user, inbox);
    const keys = [...range(this.db.smsMessages, { start: `${p}\uffff`, end: p, reverse: true }, false)].map((e) => e.key);
    for (const key of keys.slice(SMS_MAX_PER_INBOX)) await this.db.smsMessages.remove(key);
  }

  /** One timer at a time, not holding the process open, so a quiet daemon still drops old messages. */
  private schedulePrune() {
    if (this.pruneTimer) return;
    this.pruneTimer = setTimeout(() => {
      this.pruneTimer = undefined;
      // The store may have been closed meanwhile (daemon stopped); then there is nothing left to prune.
      this.prune()
        .then(() => {
          if (this.db.smsMessages.getKeysCount() > 0) this.schedulePrune();
        })
        .catch(() => undefined);
    }, this.keepMs + 1000);
    this.pruneTimer.unref();
  }
}
