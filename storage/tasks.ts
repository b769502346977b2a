/**
 * Server-run tasks, durable in LMDB: the goal and limits, the state, and the conversation so far (messages,
 * step, usage), written after every step so a restarted daemon goes on where the task was. Keyed by
 * `<user>\0<id>`; the owner's id comes from the caller, so another user's task id is simply not found. The
 * caller's model key is never part of a record (the service keeps it in memory only).
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { TaskMessage, TaskState, TaskView } from '../protocol/tasks.js';

/** What a task's owner sees (protocol/tasks.ts), plus whose it is and the conversation its model has had so far. */
export interface TaskRecord extends TaskView {
  user: string;
  messages: TaskMessage[];
}

const key = (user: string, id: string) => `${user}\0${id}`;

export class TaskStore {
  private records: Database<TaskRecord, string>;

  constructor(private db: Db) {
    this.records = db.root.openDB<TaskRecord, string>({ name: 'tasks' });
  }

  get(user: string, id: string): TaskRecord | undefined {
    return this.records.get(key(user, id));
  }

  /** One user's tasks, newest first. */
  list(user: string): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const { value } of this.records.getRange({ start: `${user}\0`, end: `${user}\x01` })) out.push(value);
    return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  }

  /** Every user's tasks in the given states (at start: the ones to go on with). */
  inStates(states: readonly TaskState[]): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const { value } of this.records.getRange({})) if (states.includes(value.state)) out.push(value);
    return out;
  }

  async create(rec: TaskRecord): Promise<void> {
    await this.records.put(key(rec.user, rec.id), rec);
    await this.db.flushed();
  }

  /**
   * Changes a task in one transaction: `change` sees the stored record and returns the fields to set, or
   * undefined to leave it alone (a step finishing after the task was cancelled must not undo the cancel).
   * Durable before it resolves; answers the record as stored afterwards.
   */
  async update(user: string, id: string, change: (cur: TaskRecord) => Partial<TaskRecord> | undefined): Promise<{ rec: TaskRecord; changed: boolean } | undefined> {
    let out: { rec: TaskRecord; changed: boolean } | undefined;
    await this.records.transaction(() => {
      const cur = this.records.get(key(user, id));
      if (!cur) return;
      const patch = change(cur);
      if (!patch) {
        out = { rec: cur, changed: false };
        return;
      }
      const rec = { ...cur, ...patch, updatedAt: new Date().toISOString() };
      this.records.put(key(user, id), rec);
      out = { rec, changed: true };
    });
    await this.db.flushed();
    return out;
  }
}
