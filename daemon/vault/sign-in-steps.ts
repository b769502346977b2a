/**
 * When a sign-in step began in a tab: the last moment a vault value of an entry went into one of its fields.
 * A texted or mailed code the site sent for that step may arrive before the agent gets to browser_fill_otp
 * (the agent looks at the page first), so the code wait counts messages from this moment, not only from its
 * own start. In memory only: a step is worth minutes, and a restart ends the sign-in anyway.
 */

/** Older steps are not a sign-in in progress: the code wait then starts at the call, as before. */
export const STEP_KEEP_MS = 10 * 60 * 1000;

const steps = new Map<string, { entry: string; at: number }>();
const key = (user: string, tab: string) => `${user}\u0000${tab}`;

/** A vault value of `entry` was just filled into tab `tab` (tab ids are never reused for a user). */
export function noteSignInStep(user: string, tab: string, entry: string, at = Date.now()): void {
  steps.delete(key(user, tab));
  steps.set(key(user, tab), { entry, at });
  // Steps are few (one per tab that signed in); drop the stale ones as new ones come.
  for (const [k, s] of steps) {
    if (at - s.at <= STEP_KEEP_MS) break;
    steps.delete(k);
  }
}

/** When the sign-in step of `entry` in this tab began, if one did in the last STEP_KEEP_MS. */
export function signInStepStart(user: string, tab: string, entry: string, now = Date.now()): number | undefined {
  const s = steps.get(key(user, tab));
  return s && s.entry === entry && now - s.at <= STEP_KEEP_MS ? s.at : undefined;
}
