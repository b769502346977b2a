/** Named profiles of a user: each a persistent user-data dir of its own under <data>/profiles/<user>/named/. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export class ProfileStore {
  constructor(private dataDir: string) {}

  list(user: string): string[] {
    const dir = join(this.dataDir, 'profiles', user, 'named');
    if (!existsSync(dir)) return [];
    return readdirSync(dir).filter((n) => /^[a-z0-9][a-z0-9_-]{0,39}$/.test(n));
  }
}
