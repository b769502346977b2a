/**
 * Fair share of the host's browsers. Slots are first come, first served while there is room; once the host
 * runs all it may and a user below their share asks, one browser of a user above their share gives way: the
 * one idle the longest, never one a call, a crawl, a CDP session or a live view holds. So a user with several
 * named profiles may use every free slot, yet never keeps the last one from another user who asks.
 */

export interface Slot {
  key: string;
  user: string;
  /** When its last use ended (ms); the smallest is the one idle the longest. */
  lastUsed: number;
  /** In use now (pool.hold), or still starting: never stopped. */
  busy: boolean;
}

/** Browsers each user may keep when `users` users want them: an equal part of the host's, at least one. */
export function fairShare(hostMax: number, users: number): number {
  return Math.max(1, Math.floor(hostMax / Math.max(1, users)));
}

/**
 * The browser to stop so `requester` can start one, or undefined when none should: the requester is at or
 * above their share, or every browser of the users above theirs is busy.
 */
export function browserToStop(slots: readonly Slot[], requester: string, hostMax: number): string | undefined {
  const held = new Map<string, number>([[requester, 0]]);
  for (const s of slots) held.set(s.user, (held.get(s.user) ?? 0) + 1);
  const share = fairShare(hostMax, held.size);
  if (held.get(requester)! >= share) return undefined;
  let pick: Slot | undefined;
  for (const s of slots) {
    if (s.user === requester || s.busy || held.get(s.user)! <= share) continue;
    if (!pick || s.lastUsed < pick.lastUsed) pick = s;
  }
  return pick?.key;
}
