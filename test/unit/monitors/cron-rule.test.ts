/** Cron rules: what is accepted, what is refused (lists and ranges too), zones and their offsets. */
import t, { type Test } from 'tap';
import { parseCronRule } from '../../../daemon/monitors/cron-rule.js';
import { isoInZone } from '../../../daemon/monitors/zone-time.js';
import { BrowserdError } from '../../../protocol/errors.js';

const NOW = new Date('2026-03-28T12:00:00Z');

function refusal(t: Test, cron: string, tz = 'UTC'): BrowserdError | undefined {
  try {
    parseCronRule(cron, tz, { now: NOW });
    return undefined;
  } catch (e) {
    t.type(e, BrowserdError);
    return e as BrowserdError;
  }
}

t.test('schedules 5 minutes apart or more are accepted', async (t) => {
  for (const cron of ['*/5 * * * *', '@hourly', '@daily', '0 9 * * 1-5', '0,5 * * * *', '0,30 8-17 * * *', '15 3 1 * *']) {
    t.notOk(refusal(t, cron), cron);
  }
});

t.test('anything with two runs under 5 minutes apart is refused, lists and ranges too', async (t) => {
  for (const cron of ['* * * * *', '*/4 * * * *', '0-4 * * * *', '0,3 * * * *', '0,59 * * * *', '10-12 9 * * *', '0,2 0 1 1 *']) {
    const e = refusal(t, cron);
    t.equal(e?.code, 'validation_error', cron);
    t.match(e?.message, /"cron"/, `${cron}: the message names the field`);
    t.ok(e?.next, 'with a next step');
  }
});

t.test('only five fields or @hourly / @daily', async (t) => {
  for (const cron of ['0 0 * * * *', '* * * *', '@reboot', '@weekly', 'every hour', '61 * * * *']) {
    const e = refusal(t, cron);
    t.equal(e?.code, 'validation_error', cron);
    t.match(e?.message, /"cron"/);
  }
});

t.test('time zones: the cron is read in the zone, across a DST change', async (t) => {
  const berlin = parseCronRule('0 9 * * *', 'Europe/Berlin', { now: NOW });
  // 28 March is still winter time in Berlin (UTC+1); Europe moves to summer time on 29 March 2026.
  const first = berlin.nextAfter(NOW)!;
  t.equal(first.toISOString(), '2026-03-29T07:00:00.000Z', '09:00 CEST on the 29th, the day DST starts');
  t.equal(isoInZone(first, 'Europe/Berlin'), '2026-03-29T09:00:00+02:00');
  const ny = parseCronRule('30 7 * * 1', 'America/New_York', { now: NOW });
  t.equal(ny.nextAfter(NOW)!.toISOString(), '2026-03-30T11:30:00.000Z');
  t.equal(isoInZone(ny.nextAfter(NOW)!, 'America/New_York'), '2026-03-30T07:30:00-04:00');
  t.equal(isoInZone(new Date('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01T00:00:00+00:00');
  t.equal(isoInZone(new Date('2026-01-01T00:00:00Z'), 'Asia/Kolkata'), '2026-01-01T05:30:00+05:30');
  const utc = parseCronRule('@hourly', 'UTC', { now: NOW });
  t.equal(utc.nextAfter(new Date('2026-03-28T12:00:00.000Z'))!.toISOString(), '2026-03-28T13:00:00.000Z', 'strictly after a run time');
  t.equal(utc.nextAfter(new Date('2026-03-28T12:00:00.400Z'))!.toISOString(), '2026-03-28T13:00:00.000Z', 'and after one a few ms past it');
});

t.test('a zone that is not IANA is refused naming timezone', async (t) => {
  for (const tz of ['Mars/Olympus', 'CEST+1', '']) {
    const e = refusal(t, '@hourly', tz);
    t.equal(e?.code, 'validation_error', tz);
    t.match(e?.message, /"timezone"/);
  }
});
