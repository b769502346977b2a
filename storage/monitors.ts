/**
 * Monitors, their checks and their baselines, durable in LMDB. Keys start with the owner's id (from the caller,
 * never from client input), then the monitor id, so one user's listing never reads another's rows. A check is
 * ONE transaction: the check row, the oldest rows past the cap dropped, the new baseline when there is one, and
 * the monitor's last check and schedule mark; a crash leaves either all of it or none. Every row counts toward
 * its user's storage quota (user-bytes.ts): a new monitor and a check are refused whole past it.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { QuotaMode } from './user-bytes.js';
import { keysUnder, valuesUnder } from './key-range.js';
import { PerUserTable } from './per-user-table.js';

export const MAX_MONITORS_PER_USER = 100;
export const MAX_CHECKS_KEPT = 500;

export type CompareMode = 'text' | 'snapshot' | 'screenshot';

/** What the user asked for at create; the daemon adds the rest. */
export interface MonitorSpec {
  url: string;
  cron: string;
  timezone: string;
  compare: CompareMode;
  selector?: string;
  /** Share of changed pixels (0-1) above which a screenshot counts as changed. */
  threshold: number;
  /** Regexes (source text) of lines left out before comparing text or snapshot. */
  ignore: string[];
  name?: string;
}

export interface MonitorRecord extends MonitorSpec {
  id: string;
  user: string;
  createdAt: string;
  /**
   * The scheduled run (ISO) the last scheduled check stood for, or createdAt before any: the next run is
   * computed from it, so a run that fell while the daemon was down is seen at start.
   */
  scheduledFrom: string;
  checkCount: number;
  nextSeq: number;
  lastCheck?: { at: string; status: CheckStatus; changed: boolean };
}

export type CheckStatus = 'ok' | 'failed';

export interface CheckRecord {
  seq: number;
  at: string;
  changed: boolean;
  status: CheckStatus;
  summary: string;
  /** Why it ran: the schedule (a run missed while down counts as scheduled) or a `run` call. */
  trigger: 'schedule' | 'run';
}

/** What the next check compares against: text lines (text, snapshot) or PNG bytes (screenshot). */
export type Baseline = { kind: 'text'; text: string } | { kind: 'png'; png: Buffer };

const SEP = '\u0000';
const pad = (n: number) => String(n).padStart(12, '0');

/** The monitors themselves are a per-user table (`<user>\0<id>`); their checks and baselines sit beside it. */
export class MonitorStore extends PerUserTable<MonitorRecord> {
  private checkRows: Database<any, string>;
  private baselines: Database<any, string>;

  constructor(db: Db) {
    // Named databases of their own, opened here so this record kind stays in its own module.
    super(db, 'monitors');
    this.checkRows = db.table<any>('monitorChecks');
    this.baselines = db.table<any>('monitorBaselines');
  }

  private checkPrefix = (user: string, id: string) => `${user}${SEP}${id}${SEP}`;

  /** One user's monitors, oldest first (stable ids for an agent to go through). */
  list(user: string): MonitorRecord[] {
    const out: MonitorRecord[] = [...this.values(user)];
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  }

  /** Every user's monitors: what the scheduler loads at start. */
  *all(): Generator<MonitorRecord> {
    for (const { value } of this.records.getRange({})) yield value as MonitorRecord;
  }

  /**
   * Stores a new monitor unless the user already has the most they may; resolves once it is on disk.
   * The cap is checked inside the transaction, so two creates at once cannot both pass it.
   */
  /** Stores the monitor unless the user already has `max` (checked in the same transaction as the write). */
  async create(rec: MonitorRecord, max = MAX_MONITORS_PER_USER): Promise<'created' | 'full'> {
    let result: 'created' | 'full' = 'created';
    await this.db.userBytes.write(rec.user, 'monitors', (w) => {
      if (this.count(rec.user) >= max) {
        result = 'full';
        return;
      }
      w.put(this.records, this.key(rec.user, rec.id), rec);
    });
    if (result === 'created') await this.db.flushed();
    return result;
  }

  /** Removes the monitor with its checks and baseline; false when there was none. */
  override async delete(user: string, id: string): Promise<boolean> {
    let found = false;
    await this.db.userBytes.write(
      user,
      'monitors',
      (w) => {
        if (!this.get(user, id)) return;
        found = true;
        w.remove(this.records, this.key(user, id));
        w.remove(this.baselines, this.key(user, id));
        for (const k of [...keysUnder(this.checkRows, [user, id])]) w.remove(this.checkRows, k);
      },
      'count',
    );
    await this.db.flushed();
    return found;
  }

  baseline(user: string, id: string): Baseline | undefined {
    const b = this.baselines.get(this.key(user, id)) as Baseline | undefined;
    if (b?.kind === 'png' && !Buffer.isBuffer(b.png)) return { kind: 'png', png: Buffer.from(b.png as Uint8Array) };
    return b;
  }

  /**
   * Records a check (and the new baseline, when given) in one transaction; a monitor deleted while its check
   * ran gets nothing. `scheduledFor` moves the schedule mark forward (a scheduled run), never back. Past the
   * user's storage quota it is refused whole ('refuse'); 'count' is for the short check saying so.
   */
  async addCheck(user: string, id: string, check: Omit<CheckRecord, 'seq'>, opts: { baseline?: Baseline; scheduledFor?: string; quota?: QuotaMode } = {}): Promise<CheckRecord | undefined> {
    let stored: CheckRecord | undefined;
    // Asynchronous: the write thread commits the checks of many monitors that finish together in one go.
    await this.db.userBytes.write(
      user,
      'monitors',
      (w) => {
        const rec = this.get(user, id);
        if (!rec) return;
        const p = this.checkPrefix(user, id);
        const row: CheckRecord = { ...check, seq: rec.nextSeq };
        w.put(this.checkRows, `${p}${pad(rec.nextSeq)}`, row);
        rec.nextSeq++;
        rec.checkCount++;
        // Oldest first in key order: drop what is past the cap.
        if (rec.checkCount > MAX_CHECKS_KEPT) {
          for (const k of [...keysUnder(this.checkRows, [user, id], { limit: rec.checkCount - MAX_CHECKS_KEPT })]) w.remove(this.checkRows, k);
          rec.checkCount = MAX_CHECKS_KEPT;
        }
        if (opts.baseline) w.put(this.baselines, this.key(user, id), opts.baseline);
        if (opts.scheduledFor && opts.scheduledFor > rec.scheduledFrom) rec.scheduledFrom = opts.scheduledFor;
        rec.lastCheck = { at: check.at, status: check.status, changed: check.changed };
        w.put(this.records, this.key(user, id), rec);
        stored = row;
      },
      opts.quota ?? 'refuse',
    );
    return stored;
  }

  /** Checks newest first; changedOnly keeps those that found a change. */
  checks(user: string, id: string, opts: { changedOnly?: boolean; limit: number }): CheckRecord[] {
    const out: CheckRecord[] = [];
    for (const value of valuesUnder(this.checkRows, [user, id], { reverse: true })) {
      const c = value as CheckRecord;
      if (opts.changedOnly && !c.changed) continue;
      out.push(c);
      if (out.length >= opts.limit) break;
    }
    return out;
  }
}
