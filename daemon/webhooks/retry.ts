/**
 * When a failed delivery is tried again: about 1 s after the first failure, doubling each time, never more than
 * 30 min apart, with jitter so rows that failed together (a receiver that went down) do not come back together.
 * After 24 h from the event a row is given up (`failed`). The same curve paces a receiver that keeps failing,
 * so a dead receiver is probed now and then instead of being sent every pending row.
 */

export interface RetryPolicy {
  /** The first retry's delay (ms). */
  baseMs: number;
  /** The longest wait between two tries (ms). */
  maxDelayMs: number;
  /** How long after the event a row may still be tried (ms). */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxDelayMs: 30 * 60_000, giveUpAfterMs: 24 * 3600_000 };

/**
 * The wait before try number `failures + 1`, after `failures` failed tries (1 or more): base x 2^(failures-1),
 * capped, times a jitter factor from 0.8 to 1.2 (still capped). `random` is Math.random unless a test fixes it.
 */
export function retryDelay(failures: number, policy: RetryPolicy = DEFAULT_RETRY, random: () => number = Math.random): number {
  const exp = Math.min(policy.baseMs * 2 ** Math.max(0, failures - 1), policy.maxDelayMs);
  return Math.round(Math.min(policy.maxDelayMs, exp * (0.8 + 0.4 * random())));
}

/** What follows a failed try at `now`: the next time, or give up because it would fall past the 24 h window. */
export function afterFailure(createdAtMs: number, failures: number, now: number, policy: RetryPolicy = DEFAULT_RETRY, random: () => number = Math.random): { state: 'pending'; nextAt: number } | { state: 'failed' } {
  const nextAt = now + retryDelay(failures, policy, random);
  return nextAt > createdAtMs + policy.giveUpAfterMs ? { state: 'failed' } : { state: 'pending', nextAt };
}
