/**
 * Recording: while a tab is recorded, every tool call that touches it becomes a step (tool, arguments without
 * vault values, a locator beside each ref, the URL before, duration, outcome, a JPEG after). The call pipeline
 * asks `stepStarting` before the handler (elements are located while they still exist: a click may remove its
 * button) and the returned step's `finish` after it, while the call still holds the tab, so the screenshot shows
 * this call's result and no other. A recording ends on stop, at 500 steps, after 30 minutes, when its tab is
 * closed or goes away (`tab_closed`: browser_close_tab, a closed context, the page closing itself, the browser
 * stopping), when its next step would pass the user's storage quota (`storage_quota`), or with the daemon.
 */
import type { Platform } from '../platform.js';
import type { ToolContext } from '../call/context.js';
import type { CallOutcome } from '../call/call.js';
import type { Tab } from '../browser/tab.js';
import type { CdpConnection, Disposable } from '../cdp/connection.js';
import { BrowserdError } from '../../protocol/errors.js';
import { messageWithPageText } from '../call/error-line.js';
import type { Locator, RecordStore, Recording, Step } from '../../storage/records.js';
import { attachTabCache } from '../cache/index.js';
import { screenshot } from '../browser/capture.js';
import { scrubList, scrubText } from '../call/redact.js';
import { userSecrets } from '../secrets/user-secrets.js';
import { locatorFor } from './locator.js';
import { refArgs, stepArgs } from './args.js';
import { lengthOnlyArgs } from '../call/redact.js';
import { recordingEvent } from './events.js';
import { startVideo, type VideoCapture } from './video.js';
import { isQuotaRefusal, PendingCount, quotaError } from '../quotas/limits.js';

export const MAX_STEPS = 500;
export const MAX_RECORDING_MS = 30 * 60_000;
/** The recording and replay tools act on recordings, not on the page: never steps themselves. */
const NOT_STEPS = new Set(['browser_record', 'browser_record_script', 'browser_replay', 'browser_replay_wait']);

interface Active {
  rec: Recording;
  timer: NodeJS.Timeout;
  detachCache?: () => Promise<void>;
  video?: VideoCapture;
  /** Stops the recording when the tab's CDP session ends; disposed at stop. */
  tabGone?: Disposable;
}

/** A call on a recorded tab under way: `finish` appends it as a step (or does nothing if it missed the tab). */
export interface PendingStep {
  finish(outcome: CallOutcome): Promise<void>;
}

export interface StartArgs {
  tab?: string;
  name?: string;
  video?: boolean;
  cache?: 'off' | 'record';
  cacheName?: string;
}

export class Recorder {
  /** Recordings under way, by `<user>\0<tab id>`; in memory, since a restart ends them. */
  private active = new Map<string, Active>();
  /** Starts between the quota check and the stored record (stored recordings are a per-user quota). */
  private starting = new PendingCount();

  constructor(
    private env: () => Platform,
    private store: RecordStore,
  ) {}

  private key = (user: string, tab: string) => `${user}\u0000${tab}`;

  /** The recording under way on a tab, if any. */
  recordingOn(user: string, tab: string): Recording | undefined {
    return this.active.get(this.key(user, tab))?.rec;
  }

  async start(ctx: ToolContext, args: StartArgs): Promise<Recording> {
    const env = this.env();
    const user = ctx.user.id;
    const limit = env.cfg.quotas.recordings;
    const kept = this.store.list(user).length + this.starting.of(user);
    if (kept >= limit) throw quotaError('recordings', kept, limit, 'Delete old ones with browser_record {"action": "delete", "id": …}, then start again.');
    // Steps are stored bytes: a user already at their storage quota could not keep one.
    env.storageQuota.check(user, 1);
    const release = this.starting.hold(user);
    try {
      return await this.begin(ctx, args);
    } finally {
      release();
    }
  }

  private async begin(ctx: ToolContext, args: StartArgs): Promise<Recording> {
    const env = this.env();
    const user = ctx.user.id;
    const tab = await ctx.tab(args.tab);
    const running = this.recordingOn(user, tab.id);
    if (running) throw new BrowserdError('validation_error', `tab ${tab.id} is already being recorded (${running.id})`, { next: `Stop it first: browser_record {"action": "stop", "id": "${running.id}"}.` });
    const id = this.store.newRecordingId();
    const rec: Recording = {
      id,
      user,
      ...(args.name ? { name: args.name } : {}),
      state: 'recording',
      tab: tab.id,
      mode: tab.mode,
      ...(tab.record.profile ? { profile: tab.record.profile } : {}),
      ...(tab.record.context ? { context: tab.record.context } : {}),
      startUrl: tab.url,
      cache: args.cache ?? 'off',
      ...(args.cache === 'record' ? { cacheName: args.cacheName ?? id } : {}),
      video: args.video === true,
      steps: 0,
      createdAt: new Date().toISOString(),
    };
    // The browser the tab lives in is running (ctx.tab just used it); its connection tells when the tab goes.
    const conn = (await env.pool.get(user, tab.record.profile)).conn;
    const a: Active = { rec, timer: setTimeout(() => void this.stop(user, id, 'time_limit').catch(() => undefined), MAX_RECORDING_MS).unref() };
    try {
      if (rec.cacheName) {
        a.detachCache = await attachTabCache(env, user, 'record', rec.cacheName, tab);
        // The page the recording starts on must be in the cache too, or a strict replay could not open it:
        // loaded again (a GET of the same address, never a re-sent form) with the recorder listening.
        if (/^https?:/.test(tab.url)) await tab.navigate(tab.url);
      }
      if (rec.video) a.video = await startVideo(env, user, tab);
    } catch (e) {
      clearTimeout(a.timer);
      await a.detachCache?.().catch(() => undefined);
      await a.video?.cancel().catch(() => undefined);
      throw e;
    }
    this.active.set(this.key(user, tab.id), a);
    a.tabGone = this.watchTab(conn, user, id, tab);
    await this.store.put(rec);
    return rec;
  }

  /**
   * A recorded tab that is gone can take no more steps, and nobody would stop a recording of a tab they no
   * longer see: it stops itself, so recording.finished still reaches the user's receivers. The tab's session
   * ending is the one signal every way out gives (closed by a tool, by the page, with its context, or the
   * browser going down); a crash is not an end (the tab stays and can be reloaded). A session already gone is
   * reported at once, so a tab closed while start ran is not missed.
   */
  private watchTab(conn: CdpConnection | undefined, user: string, id: string, tab: Tab): Disposable | undefined {
    return conn?.onSessionGone(tab.sessionId, (end) => {
      if (end.kind !== 'closed') return;
      void this.stop(user, id, 'tab_closed').catch((e) => this.env().log.error({ user, id, err: String(e) }, 'stopping a recording of a closed tab failed'));
    });
  }

  /** Ends a recording (its video muxed and stored) and sends recording.finished; a stopped one is returned as is. */
  async stop(user: string, id: string, reason: string): Promise<Recording> {
    const entry = [...this.active.values()].find((a) => a.rec.user === user && a.rec.id === id);
    if (!entry) {
      const rec = this.store.get(user, id);
      if (!rec) throw notFound(id);
      return rec;
    }
    this.active.delete(this.key(user, entry.rec.tab));
    clearTimeout(entry.timer);
    entry.tabGone?.dispose();
    const rec = entry.rec;
    await entry.detachCache?.().catch(() => undefined);
    if (entry.video) {
      try {
        rec.videoFile = await entry.video.finish(`${rec.id}.webm`);
      } catch (e) {
        // The steps are the recording; a video that could not be made is a note on it, not a failed stop.
        rec.note = `the video could not be made: ${e instanceof Error ? e.message : String(e)}`.slice(0, 300);
      }
    }
    rec.state = 'stopped';
    rec.stopReason = reason;
    rec.stoppedAt = new Date().toISOString();
    await this.store.put(rec);
    await this.env().webhooks.emit(user, 'recording.finished', recordingEvent(rec)).catch((e) => this.env().log.error({ err: String(e) }, 'recording.finished event failed'));
    return rec;
  }

  /**
   * Called by the pipeline before a handler runs: undefined unless the user records a tab right now. Refs are
   * located here, on the tab the call resolves, while their elements are still in the page.
   */
  async stepStarting(ctx: ToolContext, tool: string, args: Record<string, unknown>): Promise<PendingStep | undefined> {
    const user = ctx.user.id;
    if (NOT_STEPS.has(tool) || ![...this.active.values()].some((a) => a.rec.user === user)) return undefined;
    const started = Date.now();
    const named = typeof args.tab === 'string' ? args.tab : ctx.defaultTabId();
    const urlBefore = named ? this.env().tabs.get(user, named)?.url : undefined;
    const locators: Record<string, Locator> = {};
    const refs = refArgs(args);
    if (refs.length && named && this.active.has(this.key(user, named))) {
      // A ref names an element of the call's tab, so the handler resolves this same tab: asking first is free.
      const tab = await ctx.tab(typeof args.tab === 'string' ? args.tab : undefined);
      for (const { key, ref } of refs) {
        const loc = await locatorFor(tab, ref);
        if (loc) locators[key] = loc;
      }
    }
    return { finish: (outcome) => this.finish(ctx, tool, args, { started, urlBefore, locators }, outcome).catch((e) => this.env().log.error({ user, tool, err: String(e) }, 'recording a step failed')) };
  }

  private async finish(ctx: ToolContext, tool: string, args: Record<string, unknown>, before: { started: number; urlBefore?: string; locators: Record<string, Locator> }, outcome: CallOutcome) {
    const user = ctx.user.id;
    const tab: Tab | undefined = ctx.touched.find((t) => this.active.has(this.key(user, t.id)));
    if (!tab) return;
    const a = this.active.get(this.key(user, tab.id))!;
    if (a.rec.steps >= MAX_STEPS) return;
    const secrets = secretsOf(this.env(), user);
    const jpeg = tab.closed || tab.crashed ? undefined : await screenshot(tab, { format: 'jpeg', quality: 60 }).then((b64) => Buffer.from(b64, 'base64')).catch(() => undefined);
    const step: Step = {
      seq: a.rec.steps + 1,
      tool,
      args: stepArgs(lengthOnlyArgs(tool, args), secrets),
      locators: before.locators,
      url: before.urlBefore ?? tab.url,
      at: new Date(before.started).toISOString(),
      ms: Date.now() - before.started,
      outcome: outcome.ok ? 'ok' : outcome.error.code,
      ...(outcome.ok ? {} : { message: scrubText(messageWithPageText(outcome.error), scrubList(secrets)).slice(0, 500) }),
      screenshot: !!jpeg,
    };
    a.rec.steps = step.seq;
    try {
      await this.store.addStep(a.rec, step, jpeg);
    } catch (e) {
      a.rec.steps = step.seq - 1;
      if (!isQuotaRefusal(e, 'storageBytes')) throw e;
      // Past the storage quota the step is not kept, and the recording ends there with the steps before.
      a.rec.note = STORAGE_QUOTA_NOTE;
      await this.stop(user, a.rec.id, 'storage_quota');
      return;
    }
    if (a.rec.steps >= MAX_STEPS) await this.stop(user, a.rec.id, 'step_limit');
  }

  /** At start: recordings a crash or restart left open are stopped (their steps kept). */
  async endUnfinished(): Promise<void> {
    for (const rec of [...this.store.unfinished()]) {
      await this.store.put({ ...rec, state: 'stopped', stopReason: 'restart', stoppedAt: new Date().toISOString(), ...(rec.video ? { note: 'the daemon stopped before the video was made' } : {}) });
    }
  }

  /** At shutdown: every recording under way stops, its video still made while the browser is there. */
  async close(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => this.stop(a.rec.user, a.rec.id, 'shutdown').catch(() => undefined)));
  }
}

const STORAGE_QUOTA_NOTE = 'stopped at your storage quota (--max-storage-mb-per-user): the next step would have passed it and was not kept; the steps before are. Delete what you no longer need, then record again.';

export const notFound = (id: string) => new BrowserdError('not_found', `no recording ${id}`, { next: 'List yours with browser_record {"action": "list"}.' });

function secretsOf(env: Platform, user: string): string[] {
  try {
    return userSecrets(env, user);
  } catch {
    return env.filledCodes.list(user);
  }
}
