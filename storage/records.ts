/**
 * Recordings (tool calls on one tab, each a step with its JPEG) and their replays, durable in LMDB. Every key
 * starts with a kind letter and the owner's id (from the caller, never from client input), so one user's rows
 * can never answer another's lookup. Key spaces of the one `records` database:
 *   r <user> <rec id>            -> Recording
 *   s <user> <rec id> <seq>      -> Step (seq zero-padded: steps come back in order)
 *   j <user> <rec id> <seq>      -> the step's JPEG bytes (apart from the step, so listing steps reads no images)
 *   p <user> <rpl id>            -> Replay
 * Every row counts toward its user's storage quota (user-bytes.ts): a step, and a new replay, are refused past it;
 * a recording's own record and a replay's progress are counted but never refused (bounded by their counts).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';
import type { QuotaMode } from './user-bytes.js';
import { keysUnder, valuesUnder } from './key-range.js';

export type RecordingState = 'recording' | 'stopped';
export type CacheUse = 'off' | 'record';

export interface Recording {
  id: string;
  user: string;
  name?: string;
  state: RecordingState;
  /** The recorded tab and what a replay needs to open one like it. */
  tab: string;
  mode: 'read' | 'act';
  profile?: string;
  context?: string;
  /** Where the tab was when recording started: a replay starts there. */
  startUrl: string;
  cache: CacheUse;
  /** The response cache this recording filled (cache record), and a replay's default. */
  cacheName?: string;
  video: boolean;
  /** The WebM in the user's files, once stopped (video: true). */
  videoFile?: string;
  steps: number;
  createdAt: string;
  stoppedAt?: string;
  /** Why it stopped: stop, step_limit, time_limit, restart, tab_closed; plus what went wrong with the video. */
  stopReason?: string;
  note?: string;
}

/** A stable way back to an element a step used by ref (see daemon/records/locator.ts). */
export interface Locator {
  css: string;
  /** Accessible role and name at record time: for people reading the script, not for finding. */
  role?: string;
  name?: string;
}

export interface Step {
  seq: number;
  tool: string;
  /** The arguments as called, with any vault value or filled code replaced by "[secret]". */
  args: Record<string, unknown>;
  /** One locator per ref argument: `ref`, `fromRef`, `toRef`, `fields.<ref>`. Absent when none could be made. */
  locators: Record<string, Locator>;
  url: string;
  at: string;
  ms: number;
  /** ok, or the error code the call answered. */
  outcome: string;
  message?: string;
  screenshot: boolean;
}

export type ReplayState = 'queued' | 'running' | 'done' | 'failed';

export interface ReplayStepResult {
  seq: number;
  tool: string;
  outcome: string;
  message?: string;
  ms: number;
  /** Steps that failed while recording are not repeated. */
  skipped?: boolean;
}

export interface Replay {
  id: string;
  user: string;
  recording: string;
  cache: 'off' | 'replay' | 'replay-strict';
  cacheName?: string;
  state: ReplayState;
  tab?: string;
  steps: ReplayStepResult[];
  createdAt: string;
  finishedAt?: string;
  error?: string;
}

const SEP = '\u0000';
const pad = (n: number) => String(n).padStart(5, '0');
const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export class RecordStore {
  constructor(private db: Db) {}

  private recKey = (user: string, id: string) => `r${SEP}${user}${SEP}${id}`;
  private stepKey = (user: string, id: string, seq: number) => `s${SEP}${user}${SEP}${id}${SEP}${pad(seq)}`;
  private shotKey = (user: string, id: string, seq: number) => `j${SEP}${user}${SEP}${id}${SEP}${pad(seq)}`;
  private replayKey = (user: string, id: string) => `p${SEP}${user}${SEP}${id}`;

  newRecordingId = () => newId('rec');
  newReplayId = () => newId('rpl');

  get(user: string, id: string): Recording | undefined {
    return this.db.records.get(this.recKey(user, id)) as Recording | undefined;
  }

  /** One user's recordings, newest first. */
  list(user: string): Recording[] {
    const out: Recording[] = [];
    for (const value of valuesUnder(this.db.records, ['r', user])) out.push(value as Recording);
    return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  }

  /** Every user's recordings still marked recording (a restart ends them). */
  *unfinished(): Generator<Recording> {
    for (const value of valuesUnder(this.db.records, ['r'])) if ((value as Recording).state === 'recording') yield value as Recording;
  }

  /** The recording's record (created, stopped): counted toward the user's bytes, never refused. */
  async put(rec: Recording): Promise<void> {
    await this.db.userBytes.write(rec.user, 'records', (w) => w.put(this.db.records, this.recKey(rec.user, rec.id), rec), 'count');
    await this.db.flushed();
  }

  /** A step, its JPEG and the recording's new count, in one transaction; refused whole past the user's storage quota. */
  async addStep(rec: Recording, step: Step, jpeg?: Buffer): Promise<void> {
    await this.db.userBytes.write(rec.user, 'records', (w) => {
      w.put(this.db.records, this.stepKey(rec.user, rec.id, step.seq), step);
      if (jpeg) w.put(this.db.records, this.shotKey(rec.user, rec.id, step.seq), jpeg);
      w.put(this.db.records, this.recKey(rec.user, rec.id), rec);
    });
  }

  steps(user: string, id: string): Step[] {
    const out: Step[] = [];
    for (const value of valuesUnder(this.db.records, ['s', user, id])) out.push(value as Step);
    return out;
  }

  screenshot(user: string, id: string, seq: number): Buffer | undefined {
    const v = this.db.records.get(this.shotKey(user, id, seq));
    return v ? Buffer.from(v as Uint8Array) : undefined;
  }

  /** The recording, its steps and screenshots; its replays stay (they are their own records). */
  async delete(user: string, id: string): Promise<boolean> {
    if (!this.get(user, id)) return false;
    await this.db.userBytes.write(
      user,
      'records',
      (w) => {
        w.remove(this.db.records, this.recKey(user, id));
        for (const k of ['s', 'j']) {
          for (const key of [...keysUnder(this.db.records, [k, user, id])]) w.remove(this.db.records, key);
        }
      },
      'count',
    );
    await this.db.flushed();
    return true;
  }

  getReplay(user: string, id: string): Replay | undefined {
    return this.db.records.get(this.replayKey(user, id)) as Replay | undefined;
  }

  /** A replay as it stands: 'refuse' for a new one (past the user's storage quota), its progress only counted. */
  async putReplay(r: Replay, mode: QuotaMode = 'count'): Promise<void> {
    await this.db.userBytes.write(r.user, 'records', (w) => w.put(this.db.records, this.replayKey(r.user, r.id), r), mode);
    await this.db.flushed();
  }

  /**
   * Removes a replay (its one row holds its step results) and gives its bytes back to the user's tally, in one
   * transaction; only when `may` holds for it as stored then. 'missing' for an id the user does not have.
   */
  async deleteReplay(user: string, id: string, may: (cur: Replay) => boolean): Promise<'deleted' | 'missing' | 'refused'> {
    let out: 'deleted' | 'missing' | 'refused' = 'missing';
    await this.db.userBytes.write(
      user,
      'records',
      (w) => {
        const cur = this.getReplay(user, id);
        if (!cur) return;
        if (!may(cur)) {
          out = 'refused';
          return;
        }
        w.remove(this.db.records, this.replayKey(user, id));
        out = 'deleted';
      },
      'count',
    );
    await this.db.flushed();
    return out;
  }

  /** Every user's replays that were queued or running (a restart fails them). */
  *unfinishedReplays(): Generator<Replay> {
    for (const value of valuesUnder(this.db.records, ['p'])) {
      const r = value as Replay;
      if (r.state === 'queued' || r.state === 'running') yield r;
    }
  }
}
