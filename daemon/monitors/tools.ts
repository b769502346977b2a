/**
 * browser_monitor: pages watched on a cron schedule, signed in as the user. One tool with an action, because
 * a monitor is one record an agent creates once and looks at now and then; the checks run in the daemon
 * (daemon/monitors/) whether or not anyone is connected, and a change fires the monitor.changed webhook.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { MONITOR_ID } from '../../protocol/ids.js';
import { checkUrl } from '../net/url-check.js';
import { monitorSpec, MAX_IGNORE } from './spec.js';
import type { MonitorView } from './service.js';
import type { CheckRecord } from '../../storage/monitors.js';
import type { ResponseBuilder } from '../call/response.js';
import { inline } from '../call/response.js';
import { PageText } from '../call/output.js';
import { MONITORS } from './service.js';

const ACTIONS = ['create', 'list', 'get', 'checks', 'run', 'delete'] as const;
type Action = (typeof ACTIONS)[number];
const CREATE_ONLY = ['url', 'cron', 'timezone', 'compare', 'selector', 'threshold', 'ignore', 'name'] as const;
const NEEDS_ID: ReadonlySet<Action> = new Set(['get', 'checks', 'run', 'delete']);

const CheckStatusField = Type.Union([Type.Literal('ok'), Type.Literal('failed')]);

/** A monitor as results show it (daemon/monitors/service.ts MonitorView). */
const MonitorSchema = Type.Object({
  id: Type.String({ description: 'mon_ and 16 hex digits.' }),
  name: Type.Optional(Type.String()),
  url: Type.String(),
  cron: Type.String(),
  timezone: Type.String(),
  compare: Type.Union([Type.Literal('text'), Type.Literal('snapshot'), Type.Literal('screenshot')]),
  selector: Type.Optional(Type.String()),
  threshold: Type.Optional(Type.Number({ description: 'screenshot: the share of pixels that must differ.' })),
  ignore: Type.Optional(Type.Array(Type.String(), { description: 'text and snapshot: regexes of lines left out.' })),
  createdAt: Type.String(),
  nextRunAt: Type.Optional(Type.String({ description: "ISO 8601 in the monitor's zone, with its offset." })),
  lastCheck: Type.Optional(Type.Object({ at: Type.String(), status: CheckStatusField, changed: Type.Boolean() })),
  checksKept: Type.Integer(),
});

/** One stored check (storage/monitors.ts CheckRecord, without its sequence number). */
const CheckFields = {
  at: Type.String(),
  changed: Type.Boolean(),
  status: CheckStatusField,
  summary: PageText({ description: 'What changed (lines added and removed) or why the check failed; it quotes the page.' }),
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('run')]),
};

function describe(out: ResponseBuilder, m: MonitorView) {
  const what = `${m.compare}${m.selector ? ` of ${inline(m.selector)}` : ''}`;
  const last = m.lastCheck ? `; last check ${m.lastCheck.at} ${m.lastCheck.status}${m.lastCheck.changed ? ', changed' : ''}` : '; not checked yet';
  out.text(`${m.id}${m.name ? ` (${inline(m.name)})` : ''}: ${inline(m.url)} — ${what}, cron "${inline(m.cron)}" in ${m.timezone}, next run ${m.nextRunAt ?? 'none'}${last}`);
}

function checkLine(c: CheckRecord): string {
  return `${c.at} ${c.status}${c.status === 'ok' ? (c.changed ? ' CHANGED' : ' unchanged') : ''} (${c.trigger}): ${c.summary}`;
}

export const monitorTools = [
  defineTool({
    name: 'browser_monitor',
    title: 'Watch pages on a schedule',
    description:
      'Watches a page on a cron schedule in a hidden read-only tab of your profile and fires the monitor.changed webhook when it changes (the first check is the baseline). Actions: create, list (default), get, checks, run (check now), delete.',
    input: params({
      action: Type.Optional(StringEnum(ACTIONS, { description: 'Default list.', default: 'list' })),
      id: Type.Optional(Type.String({ pattern: MONITOR_ID.source })),
      url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
      cron: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'Five fields or @hourly/@daily, 5 minutes apart at least.' })),
      timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA. Default UTC.' })),
      compare: Type.Optional(StringEnum(['text', 'snapshot', 'screenshot'], { description: 'Default text.' })),
      selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Watch only its first match.' })),
      threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Share of pixels. Default 0.01.' })),
      ignore: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: MAX_IGNORE, description: 'Regexes of lines to leave out.' })),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      changedOnly: Type.Optional(Type.Boolean()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 10.' })),
    }),
    // One tool, several actions: what is set depends on the action, so every field is optional.
    output: Type.Object({
      id: Type.Optional(Type.String({ description: 'The monitor (every action but list).' })),
      monitor: Type.Optional(MonitorSchema),
      monitors: Type.Optional(Type.Array(MonitorSchema, { description: 'list: oldest first, up to limit.' })),
      total: Type.Optional(Type.Integer({ description: 'list: how many monitors you have.' })),
      checks: Type.Optional(Type.Array(Type.Object(CheckFields), { description: 'checks: newest first.' })),
      check: Type.Optional(
        Type.Object(
          {
            ...CheckFields,
            added: Type.Optional(Type.Array(PageText(), { description: 'text and snapshot: lines that came.' })),
            removed: Type.Optional(Type.Array(PageText(), { description: 'text and snapshot: lines that went.' })),
            share: Type.Optional(Type.Number({ description: 'screenshot: the share of pixels that differ (0-1).' })),
          },
          { description: 'run: the check just made.' },
        ),
      ),
      deleted: Type.Optional(Type.Boolean()),
    }),
    effect: 'read',
    hints: { readOnly: false, destructive: true, idempotent: false },
    needsBrowser: false,
    check(args) {
      const action = args.action ?? 'list';
      if (NEEDS_ID.has(action) && !args.id) throw new BrowserdError('validation_error', `browser_monitor ${action} needs "id"`, { next: 'List your monitors with browser_monitor {"action": "list"} to find the id.' });
      if (!NEEDS_ID.has(action) && args.id) throw new BrowserdError('validation_error', `"id" is not taken by action ${action}`, { next: 'Leave id out, or use get, checks, run or delete.' });
      if (action !== 'create') {
        const stray = CREATE_ONLY.find((k) => args[k] !== undefined);
        if (stray) throw new BrowserdError('validation_error', `"${stray}" is taken by action create only, not ${action}`, { next: `Leave ${stray} out; to change a monitor, delete it and create it again.` });
      }
      if (args.changedOnly !== undefined && action !== 'checks') throw new BrowserdError('validation_error', `"changedOnly" is taken by action checks only, not ${action}`, { next: 'Leave changedOnly out.' });
      if (args.limit !== undefined && action !== 'list' && action !== 'checks') throw new BrowserdError('validation_error', `"limit" is taken by actions list and checks only, not ${action}`, { next: 'Leave limit out.' });
    },
    async handle(ctx, args, out) {
      const user = ctx.user.id;
      const monitors = ctx.service(MONITORS);
      switch (args.action ?? 'list') {
        case 'create': {
          const spec = monitorSpec(args, (u) => checkUrl(u, ctx.env.cfg));
          const m = await monitors.create(user, spec);
          out.set('id', m.id).set('monitor', m);
          out.text(`Created monitor ${m.id}. Its first check records the baseline; run one now with browser_monitor {"action": "run", "id": "${m.id}"}.`);
          describe(out, m);
          return;
        }
        case 'list': {
          const { monitors: list, total } = monitors.list(user, args.limit ?? 10);
          out.set('monitors', list).set('total', total);
          out.text(total ? `${total} monitor(s)${list.length < total ? `, the first ${list.length} shown (limit up to 50)` : ''}:` : 'No monitors yet; create one with browser_monitor {"action": "create", "url": ..., "cron": "0 * * * *"}.');
          for (const m of list) describe(out, m);
          return;
        }
        case 'get': {
          const m = monitors.get(user, args.id!);
          out.set('id', m.id).set('monitor', m);
          describe(out, m);
          return;
        }
        case 'checks': {
          const checks = monitors.checks(user, args.id!, { changedOnly: args.changedOnly ?? false, limit: args.limit ?? 10 });
          out.set('id', args.id).set('checks', checks.map(({ seq: _seq, ...c }) => c));
          out.text(checks.length ? `${checks.length} check(s) of ${args.id}, newest first${args.changedOnly ? ', changes only' : ''}:` : `No ${args.changedOnly ? 'changed ' : ''}checks of ${args.id} yet.`);
          // Summaries quote the page (lines added and removed, its error text): page data, fenced.
          if (checks.length) out.page(`checks of ${args.id}`, checks.map(checkLine).join('\n'));
          return;
        }
        case 'run': {
          const { seq: _seq, comparison, ...check } = await monitors.run(user, args.id!);
          out.set('id', args.id).set('check', { ...check, ...(comparison?.added ? { added: comparison.added, removed: comparison.removed } : {}), ...(comparison?.share !== undefined ? { share: comparison.share } : {}) });
          out.text(`Checked ${args.id}: ${check.status === 'failed' ? 'the check failed (the baseline is kept)' : check.changed ? 'CHANGED (monitor.changed sent to your webhooks)' : 'no change'}.`);
          out.page(`check of ${args.id}`, check.summary);
          return;
        }
        case 'delete': {
          await monitors.delete(user, args.id!);
          out.set('id', args.id).set('deleted', true);
          out.text(`Deleted monitor ${args.id} with its checks.`);
          return;
        }
      }
    },
  }),
];
