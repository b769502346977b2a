/**
 * browser_record keeps the tool calls made on one tab as steps; browser_replay runs them again in the
 * background in a new tab, browser_replay_wait follows it (browser_record delete removes it once it ended);
 * browser_record_script turns a recording into a Node script. The recorder and replayer are daemon/records/.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { CACHE_NAME } from '../../protocol/ids.js';
import type { Recording, Replay, Step } from '../../storage/records.js';
import { notFound } from './recorder.js';
import { scriptJson, scriptTypescript } from './script.js';
import type { ResponseBuilder } from '../call/response.js';
import type { ToolContext } from '../call/context.js';
import { inline, inlineCut, pageUrl } from '../call/response.js';
import { PageText, TabModeField } from '../call/output.js';
import { RECORDS } from './index.js';

const RecordingId = () => Type.String({ pattern: '^rec_[0-9a-f]{16}$' });
const ReplayId = () => Type.String({ pattern: '^rpl_[0-9a-f]{16}$' });
const CacheNameParam = Type.String({ pattern: CACHE_NAME.source });
const MAX_WAIT_S = 60;

/** A recording as stored (storage/records.ts Recording). */
const RecordingSchema = Type.Object({
  id: Type.String({ description: 'rec_ and 16 hex digits.' }),
  user: Type.String(),
  name: Type.Optional(Type.String()),
  state: Type.Union([Type.Literal('recording'), Type.Literal('stopped')]),
  tab: Type.String({ description: 'The recorded tab.' }),
  mode: TabModeField,
  profile: Type.Optional(Type.String()),
  context: Type.Optional(Type.String()),
  startUrl: PageText({ description: 'Where the tab was when recording started: a replay starts there.' }),
  cache: Type.Union([Type.Literal('off'), Type.Literal('record')]),
  cacheName: Type.Optional(Type.String({ description: 'The response cache this recording filled.' })),
  video: Type.Boolean(),
  videoFile: Type.Optional(Type.String({ description: 'The WebM in your files, once stopped.' })),
  steps: Type.Integer({ description: 'Steps recorded so far.' }),
  createdAt: Type.String(),
  stoppedAt: Type.Optional(Type.String()),
  stopReason: Type.Optional(Type.String({ description: 'stop, step_limit, time_limit, restart, tab_closed or storage_quota.' })),
  note: Type.Optional(Type.String({ description: 'What went wrong (the video, the storage quota), if anything.' })),
});

/** One recorded step (storage/records.ts Step): the call as made, with vault values already replaced. */
const StepSchema = Type.Object({
  seq: Type.Integer(),
  tool: Type.String(),
  args: Type.Record(Type.String(), Type.Unknown(), { description: 'The arguments as called, any vault value or filled code replaced by "[secret]".' }),
  locators: Type.Record(
    Type.String(),
    Type.Object({
      css: PageText({ description: "A selector built from the page's own ids and classes." }),
      role: Type.Optional(PageText({ description: 'Accessible role at record time (a page may set any).' })),
      name: Type.Optional(PageText({ description: 'Accessible name at record time.' })),
    }),
    { description: 'A CSS locator per ref argument (ref, fromRef, toRef, fields.<ref>), made from the page at record time.' },
  ),
  url: PageText(),
  at: Type.String(),
  ms: Type.Number(),
  outcome: Type.String({ description: 'ok, or the error code the call answered.' }),
  message: Type.Optional(PageText({ description: "The error's message (it may quote the page)." })),
  screenshot: Type.Boolean({ description: 'A JPEG of the tab after the step is kept (browser_record get with step).' }),
});

const ReplayStateField = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]);

/** A replay and its report (storage/records.ts Replay). */
const ReplaySchema = Type.Object({
  id: Type.String({ description: 'rpl_ and 16 hex digits.' }),
  user: Type.String(),
  recording: Type.String({ description: 'The recording replayed.' }),
  cache: Type.Union([Type.Literal('off'), Type.Literal('replay'), Type.Literal('replay-strict')]),
  cacheName: Type.Optional(Type.String()),
  state: ReplayStateField,
  tab: Type.Optional(Type.String({ description: 'The tab the replay runs in.' })),
  steps: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      tool: Type.String(),
      outcome: Type.String({ description: 'ok, or the error code.' }),
      message: Type.Optional(PageText({ description: "The error's message (it may quote the page)." })),
      ms: Type.Number(),
      skipped: Type.Optional(Type.Boolean({ description: 'The step failed while recording and is not repeated.' })),
    }),
  ),
  createdAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
  error: Type.Optional(Type.String({ description: "Why it failed, in our words (a failed step's message is in its report)." })),
});
const ReplayResult = Type.Object({ id: Type.String(), state: ReplayStateField, replay: ReplaySchema });

function describe(out: ResponseBuilder, rec: Recording) {
  out.set('id', rec.id).set('recording', rec);
  const extras = [rec.cacheName ? `cache "${rec.cacheName}"` : '', rec.videoFile ? `video in your files as ${rec.videoFile}` : '', rec.note ? inline(rec.note) : ''].filter(Boolean);
  out.text(`Recording ${rec.id}${rec.name ? ` (${inline(rec.name)})` : ''} of tab ${rec.tab}: ${rec.state}${rec.stopReason ? ` (${rec.stopReason})` : ''}, ${rec.steps} step(s), started at ${pageUrl(rec.startUrl)}${extras.length ? `; ${extras.join('; ')}` : ''}.`).fullUrl(`start address of ${rec.id}`, rec.startUrl);
}

function stepLine(s: Step): string {
  const target = Object.entries(s.locators).map(([k, l]) => `${k} → ${l.css}${l.role ? ` (${l.role}${l.name ? ` "${l.name}"` : ''})` : ''}`).join('; ');
  return `${s.seq}. ${s.tool} ${JSON.stringify(s.args)} ${s.outcome}${s.message ? ` (${s.message})` : ''} ${s.ms} ms at ${s.url}${target ? ` — ${target}` : ''}`;
}

function describeReplay(out: ResponseBuilder, r: Replay) {
  out.set('id', r.id).set('state', r.state).set('replay', r);
  const failed = r.steps.filter((s) => !s.skipped && s.outcome !== 'ok').length;
  out.text(`Replay ${r.id} of ${r.recording}: ${r.state}, ${r.steps.length} step(s) run${failed ? `, ${failed} failed` : ''}${r.tab ? ` in tab ${r.tab}` : ''}${r.cache !== 'off' ? `, cache ${r.cache} "${r.cacheName}"` : ''}${r.error ? ` — ${inlineCut(r.error)}` : ''}.`);
  if (r.steps.length) out.page(`replay ${r.id} steps`, r.steps.map((s) => `${s.seq}. ${s.tool}: ${s.skipped ? 'skipped' : s.outcome}${s.message ? ` (${s.message})` : ''} ${s.ms} ms`).join('\n'));
}

/** browser_record delete of a replay id: only a finished replay, since one queued or running is written again by its run. */
async function deleteReplay(ctx: ToolContext, id: string, out: ResponseBuilder) {
  const store = ctx.service(RECORDS).store;
  const res = await store.deleteReplay(ctx.user.id, id, (r) => r.state === 'done' || r.state === 'failed');
  if (res === 'missing') throw new BrowserdError('not_found', `no replay ${id}`, { next: 'Start one with browser_replay; its answer has the id.' });
  if (res === 'refused') {
    throw new BrowserdError('validation_error', `id: replay ${id} is still ${store.getReplay(ctx.user.id, id)?.state ?? 'under way'}, so it was not deleted`, {
      next: `Wait for it to end with browser_replay_wait {"id": "${id}"}, then delete it.`,
    });
  }
  out.set('id', id).set('deleted', true);
  out.text(`Deleted replay ${id} (its recording stays).`);
}

export const recordTools = [
  defineTool({
    name: 'browser_record',
    title: 'Record tool calls on a tab',
    description:
      'start (default) records each tool call on a tab as a step (arguments without vault values, a locator per ref, a JPEG) until stop, 500 steps or 30 minutes; list, get, stop, delete (also a replay\'s id).',
    input: params({
      action: Type.Optional(StringEnum(['start', 'stop', 'list', 'get', 'delete'], { description: 'Default start.' })),
      tab: TabParam,
      id: Type.Optional(Type.String({ pattern: '^(rec|rpl)_[0-9a-f]{16}$' })),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      video: Type.Optional(Type.Boolean({ description: 'A WebM of the tab.' })),
      cache: Type.Optional(StringEnum(['off', 'record'], { description: 'record: keep GET responses for a replay.' })),
      cacheName: Type.Optional(CacheNameParam),
      step: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    }),
    // One tool, several actions: what is set depends on the action, so every field is optional.
    output: Type.Object({
      id: Type.Optional(Type.String({ description: 'The recording (start, stop, get, delete), or the replay deleted.' })),
      recording: Type.Optional(RecordingSchema),
      recordings: Type.Optional(Type.Array(RecordingSchema, { description: 'list: yours, newest first.' })),
      steps: Type.Optional(Type.Array(StepSchema, { description: 'get: the steps in order.' })),
      deleted: Type.Optional(Type.Boolean()),
    }),
    effect: 'read',
    hints: { readOnly: false, destructive: true, idempotent: false },
    openWorld: false,
    check(args) {
      const action = args.action ?? 'start';
      const field = (name: string, why: string) => new BrowserdError('validation_error', `${name}: ${why}`, { next: 'See browser_record\'s input schema: start takes tab, name, video, cache, cacheName; stop, get and delete take id.' });
      if (action === 'start') {
        if (args.id !== undefined) throw field('id', 'start makes a new recording; id goes with stop, get and delete');
        if (args.cacheName !== undefined && args.cache !== 'record') throw field('cacheName', 'goes with cache: "record"');
      } else {
        for (const k of ['name', 'video', 'cache', 'cacheName'] as const) if (args[k] !== undefined) throw field(k, `only start takes it, not ${action}`);
        if (action !== 'list' && !args.id) throw field('id', `${action} needs the recording id`);
        if (action === 'list' && args.id) throw field('id', 'list takes no id');
        if (action !== 'delete' && args.id?.startsWith('rpl_')) throw field('id', `${action} takes a recording id (rec_); a replay's state is browser_replay_wait's`);
      }
      if (args.step !== undefined && action !== 'get') throw field('step', 'goes with action get');
    },
    async handle(ctx, args, out) {
      const records = ctx.service(RECORDS);
      const user = ctx.user.id;
      const action = args.action ?? 'start';
      if (action === 'start') {
        const rec = await records.recorder.start(ctx, args);
        describe(out, rec);
        out.text(`Every tool call on ${rec.tab} is a step until browser_record {"action": "stop", "id": "${rec.id}"}.`);
        return;
      }
      if (action === 'list') {
        const all = records.store.list(user);
        out.set('recordings', all);
        out.text(all.length ? `${all.length} recording(s):` : 'No recordings.');
        for (const r of all) out.text(`${r.id}${r.name ? ` (${inline(r.name)})` : ''}: ${r.state}, ${r.steps} step(s), tab ${r.tab}, ${r.createdAt}`);
        return;
      }
      if (args.id!.startsWith('rpl_')) return deleteReplay(ctx, args.id!, out);
      const known = records.store.get(user, args.id!);
      if (!known) throw notFound(args.id!);
      if (action === 'stop') return describe(out, await records.recorder.stop(user, known.id, 'stop'));
      if (action === 'delete') {
        if (known.state === 'recording') await records.recorder.stop(user, known.id, 'stop');
        await records.store.delete(user, known.id);
        out.set('id', known.id).set('deleted', true);
        out.text(`Deleted recording ${known.id} and its steps${known.videoFile ? ` (the video ${known.videoFile} stays in your files)` : ''}.`);
        return;
      }
      describe(out, known);
      const steps = records.store.steps(user, known.id);
      out.set('steps', steps);
      if (steps.length) out.page(`recording ${known.id} steps`, steps.map(stepLine).join('\n'));
      if (args.step !== undefined) {
        const jpeg = records.store.screenshot(user, known.id, args.step);
        if (!jpeg) throw new BrowserdError('not_found', `recording ${known.id} has no screenshot for step ${args.step}`, { next: `Its steps are 1-${known.steps}.` });
        out.image(jpeg.toString('base64'), 'image/jpeg');
      }
    },
  }),
  defineTool({
    name: 'browser_record_script',
    title: 'A recording as a script',
    description:
      'A recording as a runnable Node script calling the REST API (typescript), or as JSON.',
    input: params({
      id: RecordingId(),
      format: Type.Optional(StringEnum(['typescript', 'json'])),
    }),
    output: Type.Object({
      id: Type.String(),
      format: Type.Union([Type.Literal('typescript'), Type.Literal('json')]),
      script: PageText({ description: 'The script (or JSON plan), built from page data: element names, locators, URLs.' }),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const rec = ctx.service(RECORDS).store.get(ctx.user.id, args.id);
      if (!rec) throw notFound(args.id);
      const steps = ctx.service(RECORDS).store.steps(ctx.user.id, rec.id);
      const format = args.format ?? 'typescript';
      const script = format === 'json' ? JSON.stringify(scriptJson(rec, steps), null, 2) : scriptTypescript(rec, steps, ctx.service(RECORDS).tool);
      out.set('id', rec.id).set('format', format).set('script', script);
      out.text(`Recording ${rec.id} as ${format === 'json' ? 'a JSON plan' : 'a TypeScript script (npx tsx; BROWSERD_URL and BROWSERD_TOKEN from the environment)'}, ${steps.length} step(s)${rec.state === 'recording' ? ' so far' : ''}:`);
      // Built from page text (element names, locators, URLs): fenced like any page text.
      out.page(`script for ${rec.id}`, script);
    },
  }),
  defineTool({
    name: 'browser_replay',
    title: 'Replay a recording',
    description:
      'Runs a stopped recording again in a new tab in the background, finding each element by its locator; answers a replay id for browser_replay_wait. cache replay answers GETs from the recording\'s responses, the site for the rest; replay-strict never touches the network.',
    input: params({
      id: RecordingId(),
      cache: Type.Optional(StringEnum(['off', 'replay', 'replay-strict'])),
      cacheName: Type.Optional(CacheNameParam),
    }),
    output: ReplayResult,
    effect: 'write',
    openWorld: true,
    check(args) {
      if (args.cacheName !== undefined && (args.cache ?? 'off') === 'off') throw new BrowserdError('validation_error', 'cacheName: goes with cache "replay" or "replay-strict"', { next: 'Add cache, or leave cacheName out.' });
    },
    async handle(ctx, args, out) {
      const records = ctx.service(RECORDS);
      const rec = records.store.get(ctx.user.id, args.id);
      if (!rec) throw notFound(args.id);
      if (rec.state === 'recording') throw new BrowserdError('validation_error', `id: recording ${rec.id} is still recording`, { next: `Stop it first: browser_record {"action": "stop", "id": "${rec.id}"}.` });
      const cache = args.cache ?? 'off';
      if (cache !== 'off' && !args.cacheName && !rec.cacheName) {
        throw new BrowserdError('validation_error', `cacheName: recording ${rec.id} kept no responses, so a cached replay needs a cacheName`, { next: 'Pass cacheName, or record with cache: "record".' });
      }
      const r = await records.replayer.start(ctx.user, rec, cache, args.cacheName);
      describeReplay(out, r);
      out.text(`Follow it with browser_replay_wait {"id": "${r.id}"}.`);
    },
  }),
  defineTool({
    name: 'browser_replay_wait',
    title: 'Wait for a replay',
    description: 'A replay\'s state, waiting up to timeoutS while it runs, and each step\'s outcome.',
    input: params({
      id: ReplayId(),
      timeoutS: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_S, description: 'Default 50.' })),
    }),
    output: ReplayResult,
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const ms = (args.timeoutS ?? 50) * 1000;
      const r = await ctx.progress.during(ctx.service(RECORDS).replayer.wait(ctx.user.id, args.id, ms, ctx.signal), ms, () => 'seconds waited for the replay');
      if (!r) throw new BrowserdError('not_found', `no replay ${args.id}`, { next: 'Start one with browser_replay; its answer has the id.' });
      describeReplay(out, r);
    },
  }),
];
