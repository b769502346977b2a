/**
 * Server-run tasks, durable in LMDB: the goal and limits, the state, and the conversation so far (messages,
 * step, usage), written after every step so a restarted daemon goes on where the task was. Keyed by
 * `<user>\0<id>`; the owner's id comes from the caller, so another user's task id is simply not found. The
 * caller's model key is never part of a record (the service keeps it in memory only).
 *
 * Nothing a task stores holds one of its user's vault values: every record passes the owner's scrub (their
 * values and filled codes in every form) on its way in, whatever wrote it. The conversation holds page text
 * (tool results quoting pages, what the model wrote about them), so it is also sealed under the vault key like
 * the vault itself, bound to its user and task; only the parts a listing shows (goal, state, calls, result)
 * stay readable. While the vault is locked (no key) it is stored scrubbed but unsealed.
 *
 * Every record counts toward its user's storage quota (user-bytes.ts): a new task, and a change that grows one
 * ('refuse', the default), are refused whole past it; state changes the service must record whatever happens
 * (a cancel, the task's end) pass 'count'.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { QuotaMode } from './user-bytes.js';
import type { Sealed, Sealer } from './seal.js';
import type { TaskMessage, TaskState, TaskView } from '../protocol/tasks.js';
import { valuesUnder } from './key-range.js';

/** What a task's owner sees (protocol/tasks.ts), plus whose it is and the conversation its model has had so far. */
export interface TaskRecord extends TaskView {
  user: string;
  messages: TaskMessage[];
  /** The sealed conversation did not open (the vault key changed, or the record was altered): it cannot go on. */
  messagesUnreadable?: true;
}

/** A record as it rests: the conversation sealed when a key was at hand. */
type StoredTask = Omit<TaskRecord, 'messages' | 'messagesUnreadable'> & { messages?: TaskMessage[]; sealedMessages?: Sealed };

export interface TaskStoreOptions {
  /** The owner's scrub: hides their vault values and filled codes in any value. */
  scrub?: (user: string) => <T>(value: T) => T;
  /** The vault key's sealer; throws (or answers undefined) while the vault is locked. */
  sealer?: () => Sealer | undefined;
}

const key = (user: string, id: string) => `${user}\0${id}`;
const bound = (user: string, id: string) => `task-messages:${user}:${id}`;

export class TaskStore {
  private records: Database<StoredTask, string>;

  constructor(private db: Db, private opts: TaskStoreOptions = {}) {
    this.records = db.table<StoredTask>('tasks');
  }

  private sealer(): Sealer | undefined {
    try {
      return this.opts.sealer?.();
    } catch {
      return undefined;
    }
  }

  /**
   * The parts that carry words (the user's, the model's, a page's) scrubbed; ids, states, times and counts
   * kept as they are (an account id may equal a vault user name, and is no secret here).
   */
  private scrubbed(rec: TaskRecord): TaskRecord {
    if (!this.opts.scrub) return rec;
    const scrub = this.opts.scrub(rec.user);
    const words = scrub({ goal: rec.goal, startUrl: rec.startUrl, messages: rec.messages, result: rec.result, error: rec.error });
    const out: TaskRecord = { ...rec, goal: words.goal, messages: words.messages };
    for (const k of ['startUrl', 'result', 'error'] as const) if (rec[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = words[k];
    return out;
  }

  /** The record as it may rest: scrubbed, the conversation sealed. */
  private toStored(rec: TaskRecord): StoredTask {
    const { messages, messagesUnreadable: _lost, ...rest } = this.scrubbed(rec);
    const sealer = this.sealer();
    return sealer ? { ...rest, sealedMessages: sealer.sealJson(messages, bound(rec.user, rec.id)) } : { ...rest, messages };
  }

  private fromStored(stored: StoredTask): TaskRecord {
    const { sealedMessages, messages, ...rest } = stored;
    if (!sealedMessages) return { ...rest, messages: messages ?? [] };
    const sealer = this.sealer();
    try {
      if (sealer) return { ...rest, messages: sealer.openJson<TaskMessage[]>(sealedMessages, bound(stored.user, stored.id)) };
    } catch {
      // told below
    }
    return { ...rest, messages: [], messagesUnreadable: true };
  }

  get(user: string, id: string): TaskRecord | undefined {
    const stored = this.records.get(key(user, id));
    return stored && this.fromStored(stored);
  }

  /** One user's tasks, newest first. */
  list(user: string): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const value of valuesUnder(this.records, [user])) out.push(this.fromStored(value));
    return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  }

  /** Every user's tasks in the given states (at start: the ones to go on with). */
  inStates(states: readonly TaskState[]): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const { value } of this.records.getRange({})) if (states.includes(value.state)) out.push(this.fromStored(value));
    return out;
  }

  async create(rec: TaskRecord): Promise<void> {
    const stored = this.toStored(rec);
    await this.db.userBytes.write(rec.user, 'tasks', (w) => w.put(this.records, key(rec.user, rec.id), stored));
    await this.db.flushed();
  }

  /**
   * Changes a task in one transaction: `change` sees the stored record and returns the fields to set, or
   * undefined to leave it alone (a step finishing after the task was cancelled must not undo the cancel).
   * Durable before it resolves; answers the record as stored afterwards (scrubbed).
   */
  async update(user: string, id: string, change: (cur: TaskRecord) => Partial<TaskRecord> | undefined, mode: QuotaMode = 'refuse'): Promise<{ rec: TaskRecord; changed: boolean } | undefined> {
    let out: { rec: TaskRecord; changed: boolean } | undefined;
    await this.db.userBytes.write(
      user,
      'tasks',
      (w) => {
        const raw = this.records.get(key(user, id));
        if (!raw) return;
        const cur = this.fromStored(raw);
        const patch = change(cur);
        if (!patch) {
          out = { rec: cur, changed: false };
          return;
        }
        const stored = this.toStored({ ...cur, ...patch, updatedAt: new Date().toISOString() });
        w.put(this.records, key(user, id), stored);
        out = { rec: this.fromStored(stored), changed: true };
      },
      mode,
    );
    await this.db.flushed();
    return out;
  }

  /**
   * Removes the task (its one row holds the conversation, steps and tool calls) and gives its bytes back to the
   * user's tally, in one transaction; only when `may` holds for it as stored then (a task still under way is not
   * pulled from under its loop). 'missing' for an id the user does not have.
   */
  async delete(user: string, id: string, may: (cur: TaskRecord) => boolean): Promise<'deleted' | 'missing' | 'refused'> {
    let out: 'deleted' | 'missing' | 'refused' = 'missing';
    await this.db.userBytes.write(
      user,
      'tasks',
      (w) => {
        const raw = this.records.get(key(user, id));
        if (!raw) return;
        if (!may(this.fromStored(raw))) {
          out = 'refused';
          return;
        }
        w.remove(this.records, key(user, id));
        out = 'deleted';
      },
      'count',
    );
    await this.db.flushed();
    return out;
  }
}
