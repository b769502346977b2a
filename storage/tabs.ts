/** Tab records: ids that survive daemon and browser restarts, with what a tab needs to be reopened. */
import type { Db } from './db.js';
import { PerUserTable } from './per-user-table.js';

export interface TabRecord {
  id: string;
  user: string;
  url: string;
  mode: 'read' | 'act';
  allowedDomains?: string[];
  context?: string;
  profile?: string;
  /** The tab that opened this one (popups). */
  opener?: string;
  createdAt: string;
  /** Viewport set by browser_viewport; persists for the tab. */
  viewport?: { width: number; height: number; deviceScaleFactor?: number };
}

export class TabStore extends PerUserTable<TabRecord> {
  /** Called when a tab record is removed (the tab closed for good), so what was kept for the tab goes with it. */
  private removedListeners = new Set<(user: string, id: string) => void>();

  constructor(db: Db) {
    super(db, db.tabs);
  }

  /** Calls `cb` with each tab removed from now on; returns the unsubscribe. */
  onRemoved(cb: (user: string, id: string) => void): () => void {
    this.removedListeners.add(cb);
    return () => this.removedListeners.delete(cb);
  }

  /**
   * Tabs being made whose record is not written yet, per user. The per-user tab cap counts them: pages a CDP
   * client or a page opens by the dozen at once are each checked before any of their records exists.
   */
  private making = new Map<string, number>();

  /** A user's open tabs as the tab cap counts them: the records, and the tabs being made. */
  openCount(user: string): number {
    return [...this.values(user)].length + (this.making.get(user) ?? 0);
  }

  /** Holds a place under the tab cap for a tab being made, until the returned release is called (once is enough). */
  hold(user: string): () => void {
    this.making.set(user, (this.making.get(user) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const n = (this.making.get(user) ?? 1) - 1;
      if (n > 0) this.making.set(user, n);
      else this.making.delete(user);
    };
  }

  list(user: string): TabRecord[] {
    const out: TabRecord[] = [...this.values(user)];
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id, 'en', { numeric: true }));
  }

  /** Allocates the next tab number for a user (and profile): ids are never reused. */
  async nextNumber(user: string, profile?: string): Promise<number> {
    const k = `counter\u0000${user}\u0000${profile ?? ''}`;
    let n = 0;
    await this.db.meta.transaction(() => {
      n = ((this.db.meta.get(k) as number | undefined) ?? 0) + 1;
      this.db.meta.put(k, n);
    });
    return n;
  }

  async put(rec: TabRecord, durable = true): Promise<void> {
    await this.records.put(this.key(rec.user, rec.id), rec);
    if (durable) await this.db.flushed();
  }

  /** Removes the record (on disk before it resolves) and tells the listeners, whether or not it was there. */
  override async delete(user: string, id: string): Promise<boolean> {
    const had = await super.delete(user, id);
    for (const cb of this.removedListeners) {
      try {
        cb(user, id);
      } catch {
        // A listener's failure is its own: the tab is gone either way.
      }
    }
    return had;
  }

  async remove(user: string, id: string): Promise<void> {
    await this.delete(user, id);
  }

  getDefault(user: string): string | undefined {
    return this.db.meta.get(`defaultTab\u0000${user}`);
  }

  async setDefault(user: string, id: string | undefined): Promise<void> {
    if (id) await this.db.meta.put(`defaultTab\u0000${user}`, id);
    else await this.db.meta.remove(`defaultTab\u0000${user}`);
  }
}
