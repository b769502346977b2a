/**
 * API maps per user (browser_api_map builds them, browser_api_call reads them), in a named database of their
 * own opened here, keyed `<user>\0<id>`: a lookup always starts with the caller's id, so another user's map is
 * simply not there. Writes resolve once they are on disk. Maps arrive already redacted (daemon/traffic).
 */
import type { Db } from './db.js';
import type { ApiMap } from '../protocol/api-map.js';
import { PerUserTable } from './per-user-table.js';

export interface ApiMapInfo {
  id: string;
  name: string;
  hosts: string[];
  endpoints: number;
  updatedAt: string;
}

/** Maps a user may keep: each is small, but a list call reads every one's summary. */
export const MAX_MAPS_PER_USER = 500;

export class ApiMapStore extends PerUserTable<ApiMap> {
  constructor(db: Db) {
    super(db, 'apiMaps');
  }

  /** The user's maps, most recently updated first. */
  list(user: string): ApiMapInfo[] {
    const out: ApiMapInfo[] = [];
    for (const m of this.values(user)) {
      out.push({ id: m.id, name: m.name, hosts: m.hosts, endpoints: m.endpoints.length, updatedAt: m.updatedAt });
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  }

  /** Stores (or replaces) one map; on disk before it resolves. */
  put(user: string, map: ApiMap): Promise<void> {
    return this.putDurably(user, map.id, map);
  }
}

const stores = new WeakMap<Db, ApiMapStore>();

/** The store of a daemon's database, opened on first use: no wiring in env or main. */
export function apiMapStore(db: Db): ApiMapStore {
  let s = stores.get(db);
  if (!s) stores.set(db, (s = new ApiMapStore(db)));
  return s;
}
