/**
 * Drawing a user's identity: a platform by how common it is, then a random identity of that platform; when
 * someone on the host already has it, the next one in the table, and so on over the whole table, so no two
 * users of a host share one and the draw ends as long as one is left.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { identityAt, PLATFORMS, platformSize, platformStart, TABLE_SIZE, type Identity } from './table.js';

/** One string per distinct identity: the same values give the same key whatever order they were stored in. */
export function identityKey(identity: Identity): string {
  const sorted = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(sorted(identity));
}

export function drawIdentity(taken: ReadonlySet<string>, random: () => number = Math.random): { index: number; identity: Identity } {
  const total = PLATFORMS.reduce((n, p) => n + p.weight, 0);
  let roll = random() * total;
  let which = PLATFORMS.length - 1;
  for (let i = 0; i < PLATFORMS.length; i++) {
    roll -= PLATFORMS[i]!.weight;
    if (roll < 0) {
      which = i;
      break;
    }
  }
  const start = platformStart(which) + Math.floor(random() * platformSize(PLATFORMS[which]!));
  for (let step = 0; step < TABLE_SIZE; step++) {
    const index = (start + step) % TABLE_SIZE;
    const identity = identityAt(index);
    if (!taken.has(identityKey(identity))) return { index, identity };
  }
  throw new BrowserdError('refused', `every identity of the table (${TABLE_SIZE}) is taken by a user of this host`, {
    next: 'Ask the admin to remove unused users, or to turn profile_enabled off.',
  });
}
