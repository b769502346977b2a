/** The host-wide browser settings, one record: only the keys an admin set are stored; defaults fill the rest. */
import type { Db } from './db.js';

const KEY = 'browserSettings';

export class BrowserSettingsStore {
  constructor(private db: Db) {}

  /** The keys an admin has set, as last written (validated by daemon/settings before they got here). */
  stored(): Record<string, unknown> {
    return (this.db.meta.get(KEY) as Record<string, unknown> | undefined) ?? {};
  }

  /** Replaces the stored keys and resolves once they are on disk. */
  async put(settings: Record<string, unknown>): Promise<void> {
    await this.db.meta.put(KEY, settings);
    await this.db.flushed();
  }
}
