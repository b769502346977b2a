/**
 * browser_har: a tab's traffic as a redacted HAR 1.2 recording, kept in a file of the tab (not in memory) and
 * gone with the tab. States: none -> recording -> stopped -> deleted; a start while recording is refused
 * (validation_error: stop or delete first), a start after stop or delete begins a new, empty recording.
 */
import { Type, type Static } from '@sinclair/typebox';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { defineTool } from '../call/define.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { ToolContext } from '../call/context.js';
import { inline, type ResponseBuilder } from '../call/response.js';
import { harRecordings } from './har-recordings.js';
import { harDocument } from './har-document.js';
import { HAR_QUOTA_NOTE, type HarLine, type HarOptions, type HarRecording } from './har-recording.js';
import type { SameType } from './same-type.js';
import { PageText, TabIdField } from '../call/output.js';

/** Chromium's resource types, lower-cased as the recorder reports them. */
export const HAR_RESOURCE_TYPES = ['document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'eventsource', 'websocket', 'manifest', 'other', 'ping', 'preflight'] as const;
const DEFAULT_TYPES = ['document', 'xhr', 'fetch', 'websocket', 'eventsource'];
const START_ONLY = ['urlPattern', 'resourceTypes', 'bodies', 'maxEntries', 'maxBodyBytes'] as const;

// Start-only and summary-only arguments carry no schema default: the validator would fill it in, and a
// default filled in could not be told from an argument given with the wrong action.
const HarInput = params({
  action: Type.Optional(StringEnum(['start', 'summary', 'stop', 'export', 'delete'], { default: 'summary' })),
  tab: TabParam,
  urlPattern: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: '"*" (default) all; with * a glob over the URL; else a substring.' })),
  resourceTypes: Type.Optional(Type.Array(StringEnum(HAR_RESOURCE_TYPES), { minItems: 1, maxItems: HAR_RESOURCE_TYPES.length, uniqueItems: true, description: `Default ${DEFAULT_TYPES.join(', ')}.` })),
  bodies: Type.Optional(StringEnum(['text', 'none', 'all'], { description: 'Default text.' })),
  maxEntries: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Default 1000.' })),
  maxBodyBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1048576, description: 'Default 65536.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Default 50.' })),
});

const HarOptionsSchema = Type.Object({
  urlPattern: Type.String(),
  resourceTypes: Type.Array(Type.String()),
  bodies: StringEnum(['text', 'none', 'all'] as const, { description: 'Which bodies are kept.' }),
  maxEntries: Type.Integer(),
  maxBodyBytes: Type.Integer(),
});
const HarLineSchema = Type.Object({ method: Type.String(), status: Type.Integer(), type: Type.String(), url: PageText() });
const sameOptions: SameType<Static<typeof HarOptionsSchema>, HarOptions> = true;
const sameLine: SameType<Static<typeof HarLineSchema>, HarLine> = true;
void [sameOptions, sameLine];

/** A recording as results describe it (describe() below); a summary adds its newest entries. */
const HarInfo = Type.Object({
  state: StringEnum(['recording', 'stopped'] as const, { description: 'recording, or stopped (its file kept).' }),
  entries: Type.Integer({ description: 'Entries written.' }),
  dropped: Type.Integer({ description: 'Requests past maxEntries: counted, not kept.' }),
  filtered: Type.Integer({ description: 'Requests outside urlPattern or resourceTypes.' }),
  pages: Type.Integer({ description: 'Pages (main-frame documents) in the recording.' }),
  startedAt: Type.String(),
  stoppedAt: Type.Optional(Type.String()),
  options: HarOptionsSchema,
  writeError: Type.Optional(Type.String({ description: 'Why writing the file failed; the recording stopped there.' })),
  stopReason: Type.Optional(StringEnum(['storage_quota'] as const, { description: 'Why it stopped by itself: storage_quota (the next entries would have passed --max-storage-mb-per-user; the entries before are kept).' })),
  note: Type.Optional(Type.String({ description: 'What happened, when it stopped by itself.' })),
  newest: Type.Optional(
    Type.Array(HarLineSchema, { description: 'summary: the newest entries, newest first.' }),
  ),
});

/** No recording to describe: never started, or deleted. */
const HarGone = Type.Object({ state: StringEnum(['none', 'deleted'] as const, { description: 'none: never started in this tab; deleted: its file is gone.' }) });

const HarOutput = Type.Object({
  tab: TabIdField,
  har: Type.Union([HarInfo, HarGone]),
  file: Type.Optional(Type.String({ description: 'export: the .har file stored in your files.' })),
  url: Type.Optional(Type.String({ description: 'export: where to GET the file (bearer token).' })),
  size: Type.Optional(Type.Integer({ description: 'export: bytes of the file.' })),
});

type HarArgs = { action?: 'start' | 'summary' | 'stop' | 'export' | 'delete'; tab?: string; urlPattern?: string; resourceTypes?: string[]; bodies?: 'text' | 'none' | 'all'; maxEntries?: number; maxBodyBytes?: number; limit?: number };

function checkArgs(args: HarArgs) {
  const action = args.action ?? 'summary';
  if (action !== 'start') {
    const misplaced = START_ONLY.find((k) => args[k] !== undefined);
    if (misplaced) throw new BrowserdError('validation_error', `${misplaced} goes with action "start" only`, { next: `Drop ${misplaced}, or pass it with action "start".` });
  }
  if (action !== 'summary' && args.limit !== undefined) throw new BrowserdError('validation_error', 'limit goes with action "summary" only', { next: 'Drop limit, or use it with action "summary".' });
}

/** The tab named (or the default one) when it is the caller's: no lock and no browser needed to read its recording. */
function tabIdOf(ctx: ToolContext, tab: string | undefined): string {
  const id = tab ?? ctx.defaultTabId();
  if (!id || !ctx.env.tabs.get(ctx.user.id, id)) {
    throw new BrowserdError('not_found', id ? `no tab ${id}` : 'there is no open tab', { next: 'List your tabs with browser_tabs, or open one with browser_open.' });
  }
  return id;
}

function noRecording(tab: string, rec: HarRecording | undefined): BrowserdError {
  return new BrowserdError('not_found', rec?.state === 'deleted' ? `the HAR recording of ${tab} was deleted` : `${tab} has no HAR recording`, {
    next: `Start one with browser_har {"action":"start","tab":"${tab}"}.`,
  });
}

function describe(rec: HarRecording) {
  return {
    state: rec.state,
    entries: rec.counts.entries,
    dropped: rec.counts.dropped,
    filtered: rec.counts.filtered,
    pages: rec.harPages().length,
    startedAt: rec.startedAt.toISOString(),
    ...(rec.stoppedAt ? { stoppedAt: rec.stoppedAt.toISOString() } : {}),
    options: rec.options,
    ...(rec.error ? { writeError: rec.error } : {}),
    ...(rec.stopReason ? { stopReason: rec.stopReason, note: HAR_QUOTA_NOTE } : {}),
  };
}

/** `<host>-<time>.har`, a name the file store accepts. */
function exportName(url: string, at: Date): string {
  let host = 'page';
  try {
    host = new URL(url).hostname.replace(/[^A-Za-z0-9.-]/g, '-').replace(/^[.-]+/, '') || 'page';
  } catch {
    // about:blank and the like: "page".
  }
  return `${host}-${at.toISOString().replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z')}.har`;
}

async function handle(ctx: ToolContext, args: HarArgs, out: ResponseBuilder) {
  const action = args.action ?? 'summary';
  const recordings = harRecordings(ctx.env);
  if (action === 'start') {
    const tab = await ctx.tab(args.tab);
    const old = recordings.get(ctx.user.id, tab.id);
    if (old?.state === 'recording') {
      throw new BrowserdError('validation_error', `${tab.id} is already recording a HAR`, { next: 'Use action "summary" to see it, "stop" to end it, or "delete" then "start" to begin anew.' });
    }
    const rec = await recordings.start(ctx.user.id, tab, {
      urlPattern: args.urlPattern ?? '*',
      resourceTypes: args.resourceTypes ?? DEFAULT_TYPES,
      bodies: args.bodies ?? 'text',
      maxEntries: args.maxEntries ?? 1000,
      maxBodyBytes: args.maxBodyBytes ?? 65536,
    });
    out.set('tab', tab.id).set('har', describe(rec));
    out.text(`Recording a HAR of ${tab.id} (${rec.options.resourceTypes.join(', ')}; urlPattern ${inline(rec.options.urlPattern)}; bodies ${rec.options.bodies}; at most ${rec.options.maxEntries} entries). Secrets are redacted before anything is written.`);
    out.text('Next: use the page, then browser_har {"action":"summary"}, "stop" and "export".');
    return;
  }
  const tabId = tabIdOf(ctx, args.tab);
  const rec = recordings.get(ctx.user.id, tabId);
  out.set('tab', tabId);
  if (action === 'summary') {
    if (!rec || rec.state === 'deleted') {
      const state = rec ? 'deleted' : 'none';
      out.set('har', { state });
      out.text(state === 'none' ? `${tabId} has no HAR recording. Start one with browser_har {"action":"start"}.` : `The HAR recording of ${tabId} was deleted. Start a new one with browser_har {"action":"start"}.`);
      return;
    }
    const newest = rec.newest(args.limit ?? 50);
    out.set('har', { ...describe(rec), newest });
    out.text(`HAR of ${tabId}: ${rec.state}, ${rec.counts.entries} entries on ${rec.harPages().length} pages${rec.counts.dropped ? `, ${rec.counts.dropped} more not kept${rec.stopReason ? '' : ` (maxEntries ${rec.options.maxEntries})`}` : ''}${rec.counts.filtered ? `, ${rec.counts.filtered} requests outside the filters` : ''}.${rec.stopReason ? ` It ${HAR_QUOTA_NOTE}` : ''}`);
    if (newest.length) out.page(`newest HAR entries of ${tabId}`, newest.map((e) => `${e.method} ${e.status} ${e.type} ${e.url}`).join('\n'));
    return;
  }
  if (!rec || rec.state === 'deleted') throw noRecording(tabId, rec);
  if (action === 'stop') {
    const was = rec.state;
    await rec.stop();
    out.set('har', describe(rec));
    out.text(was === 'recording' ? `Stopped the HAR of ${tabId}: ${rec.counts.entries} entries kept. Next: "export" to store it as a file.` : `The HAR of ${tabId} was already stopped (${rec.counts.entries} entries).`);
    return;
  }
  if (action === 'delete') {
    await rec.delete();
    out.set('har', { state: 'deleted' });
    out.text(`Deleted the HAR recording of ${tabId}.`);
    return;
  }
  // export: streamed into a staged file next to the recording, then moved into the user's files.
  const at = new Date();
  const name = exportName(ctx.env.tabs.get(ctx.user.id, tabId)?.url ?? '', at);
  const staged = join(dirname(rec.file), `.export-${randomBytes(6).toString('hex')}.har`);
  let added;
  try {
    await pipeline(Readable.from(harDocument(rec)), createWriteStream(staged, { mode: 0o600 }));
    added = await ctx.env.files.addFile(ctx.user.id, name, staged);
  } finally {
    // Moved into the files on success; a failed export leaves nothing behind.
    await rm(staged, { force: true });
  }
  out.set('file', added.name).set('url', `/v1/files/${encodeURIComponent(added.name)}`).set('size', added.size).set('har', describe(rec));
  out.text(`Stored the HAR of ${tabId} (${rec.counts.entries} entries, ${added.size} bytes) as ${added.name}: GET /v1/files/${encodeURIComponent(added.name)}. It is also streamed live at GET /v1/tabs/${tabId}/har.`);
}

export const harTools = [
  defineTool({
    name: 'browser_har',
    title: 'Record traffic (HAR)',
    description:
      'Records a tab\'s requests as a HAR 1.2, secrets redacted: start, summary (default), stop, export (to your files), delete.',
    input: HarInput,
    output: HarOutput,
    effect: 'read',
    hints: { readOnly: false, destructive: true, idempotent: false },
    openWorld: false,
    check: checkArgs,
    handle,
  }),
];
