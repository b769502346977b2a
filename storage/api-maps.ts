/**
 * API maps per user (browser_api_map builds them, browser_api_call reads them), in a named database of their
 * own opened here, keyed `<user>\0<id>`: a lookup always starts with the caller's id, so another user's map is
 * simply not there. Writes resolve once they are on disk. Maps arrive already redacted (daemon/traffic).
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { ApiMap } from '../protocol/api-map.js';
import { countUnder, valuesUnder } from './key-range.js';

export interface ApiMapInfo {
  id: string;
  name: string;
  hosts: string[];
  endpoints: number;
  updatedAt: string;
}

/** Maps a user may keep: each is small, but a list call reads every one's summary. */
export const MAX_MAPS_PER_USER = 500;

export class ApiMapStore {
  private maps: Database<ApiMap, string>;

  constructor(private readonly db: Db) {
    this.maps = db.table<ApiMap>('apiMaps');
  }

  private key = (user: string, id: string) => `${user}\u0000${id}`;

  get(user: string, id: string): ApiMap | undefined {
    return this.maps.get(this.key(user, id));
  }

  /** The user's maps, most recently updated first. */
  list(user: string): ApiMapInfo[] {
    const out: ApiMapInfo[] = [];
    for (const m of valuesUnder(this.maps, [user])) {
      out.push({ id: m.id, name: m.name, hosts: m.hosts, endpoints: m.endpoints.length, updatedAt: m.updatedAt });
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  }

  count(user: string): number {
    return countUnder(this.maps, [user]);
  }

  /** Stores (or replaces) one map; on disk before it resolves. */
  async put(user: string, map: ApiMap): Promise<void> {
    await this.maps.put(this.key(user, map.id), map);
    await this.db.flushed();
  }

  /** True when the map was there (and is now gone). */
  async delete(user: string, id: string): Promise<boolean> {
    const had = await this.maps.remove(this.key(user, id));
    await this.db.flushed();
    return had;
  }
}

const stores = new WeakMap<Db, ApiMapStore>();

/** The store of a daemon's database, opened on first use: no wiring in env or main. */
export function apiMapStore(db: Db): ApiMapStore {
  let s = stores.get(db);
  if (!s) stores.set(db, (s = new ApiMapStore(db)));
  return s;
}
