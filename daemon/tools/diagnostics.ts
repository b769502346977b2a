/** What happened in a tab: its write log, its recent network responses and the bodies its capture kept. */
import type { ToolContext } from '../call/context.js';
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { inline, type ResponseBuilder } from '../call/response.js';
import { params, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { captureOf, CapturedExchangeSchema, CaptureStateSchema, type CapturedBody, type CapturedExchange } from '../traffic/capture.js';
import { describeCapture } from './capture.js';
import type { Tab } from '../browser/tab.js';
import type { LogEntry, NetworkEntry } from '../browser/tab-log.js';
import { PageText, TabIdField } from '../call/output.js';
import type { SameType } from '../traffic/same-type.js';

/** The ring holds 300 responses; a capture at most 200 exchanges (browser_capture's maxBodies). */
const RING_LIMIT = 300;
const CAPTURED_LIMIT = 200;

const LOG_KINDS = ['write_sent', 'write_blocked', 'navigation_blocked', 'route_blocked', 'ads_blocked', 'http_error', 'console_error', 'dialog', 'popup', 'crash', 'download'] as const;

/** A write-log entry (daemon/browser/tab-log.ts). Its detail may quote the page: a console error, a dialog's message. */
const LogEntrySchema = Type.Object({
  at: Type.String({ description: 'ISO time.' }),
  kind: Type.Union(LOG_KINDS.map((k) => Type.Literal(k))),
  method: Type.Optional(Type.String()),
  url: Type.Optional(PageText()),
  status: Type.Optional(Type.Integer()),
  detail: Type.Optional(PageText({ description: 'What happened, in words that may quote the page (a console error, a dialog message).' })),
  count: Type.Optional(Type.Integer({ description: 'ads_blocked: requests of this document failed as ads or trackers.' })),
});

/** A recent response (daemon/browser/tab-log.ts). */
const NetworkEntrySchema = Type.Object({
  at: Type.String({ description: 'ISO time the response came.' }),
  url: PageText(),
  method: Type.String(),
  status: Type.Integer({ description: '0 when the request failed.' }),
  type: Type.String({ description: 'Resource type, lower-case.' }),
  mimeType: Type.Optional(PageText({ description: 'As the server sent it.' })),
  failed: Type.Optional(Type.String({ description: 'Why it failed: the network error, or blocked:<reason> (blocked:ads for an ad or tracker).' })),
});

const sameLog: SameType<Static<typeof LogEntrySchema>, LogEntry> = true;
const sameNetwork: SameType<Static<typeof NetworkEntrySchema>, NetworkEntry> = true;
void [sameLog, sameNetwork];

function headerLines(h: Record<string, string>): string {
  return Object.entries(h).map(([k, v]) => `  ${k}: ${v}`).join('\n');
}

function bodyText(label: string, b: CapturedBody): string {
  const mark = b.truncated ? ` (truncated: first part of ${b.size} bytes)` : ` (${b.size} bytes)`;
  return `${label}${b.base64 ? ', binary as base64' : ''}${mark}:\n${b.text}`;
}

/** One captured exchange as page data: everything in it (URL, headers, bodies) came from the page or its server. */
function exchangeText(x: CapturedExchange): string {
  const lines = [`#${x.seq} ${x.method} ${x.url}`, `status ${x.failed ? `failed: ${x.failed.errorText}${x.failed.blockedReason ? ` (${x.failed.blockedReason})` : ''}` : x.status} · type ${x.type}${x.mimeType ? ` · ${x.mimeType}` : ''}${x.redirectUrl ? ` · redirected to ${x.redirectUrl}` : ''}`];
  if (Object.keys(x.requestHeaders).length) lines.push(`request headers:\n${headerLines(x.requestHeaders)}`);
  if (x.requestBody) lines.push(bodyText('request body', x.requestBody));
  if (Object.keys(x.responseHeaders).length) lines.push(`response headers:\n${headerLines(x.responseHeaders)}`);
  if (x.responseBody) lines.push(bodyText('response body', x.responseBody));
  return lines.join('\n');
}

/**
 * What browser_capture kept. filter, type and failedOnly narrow recent responses only: the capture's own
 * urlPattern and methods already chose what it kept, so here they are left out (and the answer says so).
 */
function showCaptured(ctx: ToolContext, tab: Tab, args: { filter?: string; type?: string; failedOnly?: boolean; limit?: number }, out: ResponseBuilder) {
  const capture = captureOf(ctx.env, ctx.user.id, tab.id);
  out.set('tab', tab.id);
  if (!capture) {
    out.set('capture', null).set('captured', []);
    out.text(`No capture in ${tab.id}: start one with browser_capture{urlPattern}, then let the page make its requests.`);
    return;
  }
  const rows = capture.list().slice(0, args.limit ?? 50);
  const state = capture.state();
  out.set('capture', state).set('captured', rows);
  out.text(describeCapture(tab.id, state));
  const ignored = (['filter', 'type', 'failedOnly'] as const).filter((k) => args[k] !== undefined);
  if (ignored.length) out.text(`${ignored.join(', ')} narrow recent responses only; with captured: true the capture's urlPattern and methods chose what was kept.`);
  if (!rows.length) out.text('No captured exchange matches.');
  for (const x of rows) out.page(`captured #${x.seq} in ${tab.id}: ${inline(x.url)}`, exchangeText(x));
}

export const diagnosticsTools = [
  defineTool({
    name: 'browser_log',
    title: 'Tab write log',
    description: "The tab's log, oldest first: writes sent, requests and ads blocked, HTTP and console errors, dialogs, popups.",
    input: params({ tab: TabParam, limit: Type.Optional(Type.Integer({ description: 'Newest entries. Default 100.', minimum: 1, maximum: 500 })) }),
    output: Type.Object({
      tab: TabIdField,
      entries: Type.Array(LogEntrySchema, { description: 'Oldest first.' }),
      adsBlocked: Type.Integer({ description: 'Requests blocked as ads or trackers since the tab opened.' }),
    }),
    effect: 'read',
    openWorld: false,
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const entries = tab.writeLog.all().slice(-(args.limit ?? 100));
      out.set('tab', tab.id).set('entries', entries).set('adsBlocked', tab.adsBlocked);
      if (tab.adsBlocked) out.text(`${tab.adsBlocked} request${tab.adsBlocked === 1 ? '' : 's'} of ${tab.id} blocked as ads or trackers since it opened (browser_network lists them as blocked:ads).`);
      if (!entries.length) out.text(`Nothing in the log of ${tab.id} yet.`);
      else out.page(`log of ${tab.id}`, entries.map((e) => `${e.at} ${e.kind}${e.method ? ` ${e.method}` : ''}${e.url ? ` ${e.url}` : ''}${e.status ? ` ${e.status}` : ''}${e.detail ? ` — ${e.detail}` : ''}`).join('\n'));
    },
  }),
  defineTool({
    name: 'browser_network',
    title: 'Recent network responses',
    description: 'The tab\'s recent responses (URL, method, status, type), or with captured what browser_capture kept, bodies redacted.',
    input: params({
      tab: TabParam,
      filter: Type.Optional(Type.String({ description: 'URL substring.', maxLength: 2000 })),
      type: Type.Optional(Type.String({ maxLength: 40 })),
      failedOnly: Type.Optional(Type.Boolean({ description: 'Only status >= 400 and failures.' })),
      limit: Type.Optional(Type.Integer({ description: `Default 50 (captured: at most ${CAPTURED_LIMIT}).`, minimum: 1, maximum: RING_LIMIT })),
      captured: Type.Optional(Type.Boolean()),
    }),
    // Recent responses, or with captured: true the capture's state and exchanges.
    output: Type.Object({
      tab: TabIdField,
      responses: Type.Optional(Type.Array(NetworkEntrySchema, { description: 'Without captured: recent responses, newest last.' })),
      capture: Type.Optional(Type.Union([CaptureStateSchema, Type.Null()], { description: 'With captured: the capture of the tab, or null when none was started.' })),
      captured: Type.Optional(Type.Array(CapturedExchangeSchema, { description: 'With captured: the exchanges kept, oldest first.' })),
    }),
    effect: 'read',
    openWorld: false,
    check(args) {
      if (args.captured && args.limit !== undefined && args.limit > CAPTURED_LIMIT) {
        throw new BrowserdError('validation_error', `limit must be at most ${CAPTURED_LIMIT} with captured: true (a capture keeps at most ${CAPTURED_LIMIT} exchanges)`, { next: `Give limit 1-${CAPTURED_LIMIT}.` });
      }
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      if (args.captured) return showCaptured(ctx, tab, args, out);
      let rows = tab.network.all();
      if (args.filter) rows = rows.filter((r) => r.url.includes(args.filter!));
      if (args.type) rows = rows.filter((r) => r.type === args.type!.toLowerCase());
      if (args.failedOnly) rows = rows.filter((r) => r.status >= 400 || r.failed);
      rows = rows.slice(-(args.limit ?? 50));
      out.set('tab', tab.id).set('responses', rows);
      if (!rows.length) out.text(`No matching responses in ${tab.id}.`);
      else out.page(`network of ${tab.id}`, rows.map((r) => `${r.method} ${r.status || r.failed} ${r.type} ${r.url}`).join('\n'));
    },
  }),
];
