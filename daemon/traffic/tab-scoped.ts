/**
 * Things a user attaches to one of their tabs (a HAR recording, a capture), kept by user and tab id rather
 * than by tab object: a tab reopened after its browser crashed or restarted is a new object under the same
 * id, and what was following the old one follows the new one. They go when the tab record goes (closed).
 */
import type { Platform } from '../platform.js';
import type { Tab } from '../browser/tab.js';

export interface TabScopedItem {
  /** Still following its tab (recording, capturing): re-attached to a reopened tab. */
  readonly live: boolean;
  follow(tab: Tab): void;
  /** The tab is gone, or a new item replaces this one: let go of the tab and of what was kept. */
  drop(): void | Promise<void>;
}

const key = (user: string, tab: string) => `${user}\u0000${tab}`;

export class TabScoped<T extends TabScopedItem> {
  private byTab = new Map<string, T>();

  constructor(private env: Pick<Platform, 'tabs' | 'pool'>) {
    env.tabs.onRemoved((user, tab) => void this.forget(user, tab));
    env.pool.events.on('tab', (user: string, tab: Tab) => {
      const item = this.byTab.get(key(user, tab.id));
      if (item?.live) item.follow(tab);
    });
  }

  /** The tab's item, if it has one and the tab is still open (a tab closed meanwhile takes it along). */
  get(user: string, tab: string): T | undefined {
    const item = this.byTab.get(key(user, tab));
    if (item && !this.env.tabs.get(user, tab)) {
      void this.forget(user, tab);
      return undefined;
    }
    return item;
  }

  /** The user's items on tabs still open (a per-user quota counts them). */
  ofUser(user: string): T[] {
    const out: T[] = [];
    for (const [k, item] of this.byTab) {
      const at = k.indexOf('\u0000');
      if (k.slice(0, at) === user && this.env.tabs.get(user, k.slice(at + 1))) out.push(item);
    }
    return out;
  }

  /** Puts an item on a tab, dropping the one it replaces. */
  async set(user: string, tab: string, item: T): Promise<void> {
    const old = this.byTab.get(key(user, tab));
    this.byTab.set(key(user, tab), item);
    if (old && old !== item) await old.drop();
  }

  private async forget(user: string, tab: string) {
    const item = this.byTab.get(key(user, tab));
    if (!item) return;
    this.byTab.delete(key(user, tab));
    await item.drop();
  }
}
