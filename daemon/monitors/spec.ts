/**
 * A monitor's create arguments made into a stored spec, or a validation_error naming the field: the URL (http(s)
 * only, through the same check as any page), the schedule, the ignore patterns (compiled now, so a typo is the
 * caller's error at create and never a failed check at 3 a.m.) and the selector (parsed now for the same reason).
 */
import { linearRegExp } from './linear-regexp.js';
import { compile } from 'css-select';
import { BrowserdError } from '../../protocol/errors.js';
import type { CompareMode, MonitorSpec } from '../../storage/monitors.js';
import { parseCronRule } from './cron-rule.js';

export const MAX_IGNORE = 20;
export const DEFAULT_THRESHOLD = 0.01;

export interface CreateArgs {
  url?: string;
  cron?: string;
  timezone?: string;
  compare?: CompareMode;
  selector?: string;
  threshold?: number;
  ignore?: string[];
  name?: string;
}

const bad = (message: string, next: string): never => {
  throw new BrowserdError('validation_error', message, { next });
};

/** checkUrl is the daemon's URL check (blocked schemes and addresses); it returns the normalised URL. */
export function monitorSpec(args: CreateArgs, checkUrl: (url: string) => string, now = new Date()): MonitorSpec {
  if (!args.url) bad('browser_monitor create needs "url"', 'Pass the http(s) address of the page to watch.');
  if (!args.cron) bad('browser_monitor create needs "cron"', 'Pass a schedule: five cron fields such as "0 * * * *", or @hourly / @daily.');
  if (!/^https?:\/\//i.test(args.url!.trim())) bad(`"url" must be an http(s) address, not ${JSON.stringify(args.url)}`, 'Pass an address starting with http:// or https://.');
  const url = checkUrl(args.url!.trim());
  const compare = args.compare ?? 'text';
  const timezone = args.timezone ?? 'UTC';
  parseCronRule(args.cron!, timezone, { now });
  if (args.threshold !== undefined && compare !== 'screenshot') bad('"threshold" applies to compare "screenshot" only', 'Leave threshold out, or set compare to "screenshot".');
  if (args.ignore?.length && compare === 'screenshot') bad('"ignore" applies to compare "text" and "snapshot" only (it drops lines)', 'Leave ignore out, or compare text or snapshot.');
  const ignore = args.ignore ?? [];
  if (ignore.length > MAX_IGNORE) bad(`"ignore" takes at most ${MAX_IGNORE} patterns, not ${ignore.length}`, 'Merge patterns with | or drop some.');
  ignore.forEach((src, i) => {
    try {
      linearRegExp(src);
    } catch (e) {
      bad(`"ignore.${i}" ${JSON.stringify(src)} is not a regular expression this server runs (${(e as Error).message}; backreferences and lookahead are not taken, so no pattern can take unbounded time)`, 'Give JavaScript regular expression source without backreferences or lookahead, e.g. "^Updated \\\\d+ minutes ago$".');
    }
  });
  if (args.selector !== undefined) {
    try {
      compile(args.selector);
    } catch (e) {
      bad(`"selector" ${JSON.stringify(args.selector)} is not a CSS selector (${(e as Error).message})`, 'Give a CSS selector such as "#price" or "main .news".');
    }
  }
  return {
    url,
    cron: args.cron!.trim(),
    timezone,
    compare,
    ...(args.selector !== undefined ? { selector: args.selector } : {}),
    threshold: args.threshold ?? DEFAULT_THRESHOLD,
    ignore,
    ...(args.name !== undefined ? { name: args.name } : {}),
  };
}
