/**
 * A monitor's schedule: a five-field cron line (or @hourly / @daily) read in an IANA zone. croner parses it and
 * computes the runs; this file adds the one rule of ours: a schedule whose next 1,000 runs come closer than
 * 5 minutes anywhere is refused, so lists and ranges ("0-4 * * * *", "0,1 * * * *") cannot sneak in a
 * minutely check that "*\/5" would be refused for.
 */
import { Cron } from 'croner';
import { BrowserdError } from '../../protocol/errors.js';

export const MIN_GAP_MS = 5 * 60_000;
/** How far ahead the gap rule looks: enough to cover a year of hourly runs and every DST change in it. */
export const GAP_LOOKAHEAD_RUNS = 1000;
const SHORTHANDS = new Set(['@hourly', '@daily']);

export interface CronRule {
  cron: string;
  timezone: string;
  /** The first run strictly after `after`, or undefined when the schedule has no more runs. */
  nextAfter(after: Date): Date | undefined;
}

/** True when the zone is an IANA name this Node knows (UTC included). */
export function isZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses and checks a schedule; every problem is a validation_error naming `cron` or `timezone`. A stored
 * monitor's rule was checked at create: loading it at start skips the 1,000-run walk (checkGap false).
 */
export function parseCronRule(cron: string, timezone: string, { now = new Date(), checkGap = true }: { now?: Date; checkGap?: boolean } = {}): CronRule {
  if (!isZone(timezone)) {
    throw new BrowserdError('validation_error', `"timezone" ${JSON.stringify(timezone)} is not an IANA time zone`, { next: 'Pass a name such as "UTC", "Europe/Berlin" or "America/New_York".' });
  }
  const line = cron.trim();
  if (line.startsWith('@') ? !SHORTHANDS.has(line) : line.split(/\s+/).length !== 5) {
    throw new BrowserdError('validation_error', `"cron" must be five fields (minute hour day month weekday) or @hourly / @daily, not ${JSON.stringify(cron)}`, { next: 'For example "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *".' });
  }
  let job: Cron;
  try {
    job = new Cron(line, { timezone, mode: '5-part', paused: true });
  } catch (e) {
    throw new BrowserdError('validation_error', `"cron" ${JSON.stringify(cron)} is not a cron line croner accepts: ${e instanceof Error ? e.message : String(e)}`, { next: 'Five fields: minute hour day-of-month month day-of-week, e.g. "30 7 * * *".' });
  }
  const runs = job.nextRuns(checkGap ? GAP_LOOKAHEAD_RUNS : 1, now);
  if (!runs.length) {
    throw new BrowserdError('validation_error', `"cron" ${JSON.stringify(cron)} never runs`, { next: 'Pick a schedule that has a next run.' });
  }
  for (let i = 1; i < runs.length; i++) {
    const gap = runs[i].getTime() - runs[i - 1].getTime();
    if (gap < MIN_GAP_MS) {
      throw new BrowserdError('validation_error', `"cron" ${JSON.stringify(cron)} runs ${Math.round(gap / 1000)} s apart (${runs[i - 1].toISOString()} and ${runs[i].toISOString()}); monitors run at most every 5 minutes`, {
        next: 'Space the runs at least 5 minutes apart, e.g. "*/5 * * * *" or "0 * * * *".',
      });
    }
  }
  return {
    cron: line,
    timezone,
    nextAfter(after) {
      // croner strips milliseconds and counts a run in the same second as the reference: step past it.
      return job.nextRun(new Date(after.getTime() + 1000 - (after.getTime() % 1000))) ?? undefined;
    },
  };
}
