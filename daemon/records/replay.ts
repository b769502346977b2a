/**
 * Replays: a recording's steps run again in the background, in a new tab of the recorded mode (same profile and
 * context), through callTool with via 'internal', so every step passes the same validation, policy gate and
 * audit as when it was recorded. Refs are found again by locator (locator.ts) just before each step. With a
 * cache the tab's GETs are answered from the stored responses (replay goes out for what is missing;
 * replay-strict never touches the network: a miss and every write fail in the browser). A user's replays run
 * one at a time, in order; the first step that fails ends the replay `failed`. A restart fails a running one.
 */
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import type { ToolLookup } from '../call/define.js';
import type { UserRecord } from '../../storage/users.js';
import type { RecordStore, Recording, Replay, ReplayStepResult, Step } from '../../storage/records.js';
import { BrowserdError } from '../../protocol/errors.js';
import { errorLine, messageWithPageText } from '../call/error-line.js';
import type { CallOutcome } from '../call/call.js';
import { attachTabCache } from '../cache/index.js';
import { ARGS_OMITTED, hasSecretPlaceholder, refArgs, takesTab } from './args.js';
import { replayEvent } from './events.js';

export type ReplayCache = 'off' | 'replay' | 'replay-strict';
/** Replays a user may have waiting; each is a background run in a browser. */
export const MAX_QUEUED_PER_USER = 20;
/** How long a step's element may take to appear (the page may still be loading after the step before). */
const FIND_TIMEOUT_MS = 10_000;
const FIND_POLL_MS = 200;

/** What replays need, handed in by main.ts: the platform, the pipeline a replay runs steps through, the tools. */
export interface ReplayDeps {
  env: Platform;
  callTool: CallTool;
  /** A step's tool by name: whether it takes the tab a replay or script gives it. */
  tool: ToolLookup;
}

export class Replayer {
  /** Each user's chain of replays: one runs at a time, the next starts when it ends. */
  private chains = new Map<string, Promise<void>>();
  private queued = new Map<string, number>();
  private waiters = new Set<() => void>();
  private closing = false;

  constructor(
    private deps: ReplayDeps,
    private store: RecordStore,
  ) {}

  async start(user: UserRecord, rec: Recording, cache: ReplayCache, cacheName?: string): Promise<Replay> {
    if ((this.queued.get(user.id) ?? 0) >= MAX_QUEUED_PER_USER) {
      throw new BrowserdError('refused', `${MAX_QUEUED_PER_USER} replays are already waiting`, { next: 'Wait for them with browser_replay_wait, then start more.' });
    }
    const replay: Replay = {
      id: this.store.newReplayId(),
      user: user.id,
      recording: rec.id,
      cache,
      ...(cache !== 'off' ? { cacheName: cacheName ?? rec.cacheName } : {}),
      state: 'queued',
      steps: [],
      createdAt: new Date().toISOString(),
    };
    // A new replay is stored bytes: refused past the user's storage quota (its progress later is only counted).
    await this.store.putReplay(replay, 'refuse');
    this.queued.set(user.id, (this.queued.get(user.id) ?? 0) + 1);
    const prev = this.chains.get(user.id) ?? Promise.resolve();
    const next = prev.then(() => this.run(user, rec, replay)).catch((e) => this.deps.env.log.error({ err: String(e) }, 'replay failed unexpectedly')).finally(() => {
      this.queued.set(user.id, (this.queued.get(user.id) ?? 1) - 1);
    });
    this.chains.set(user.id, next);
    return replay;
  }

  /** The replay once it is done or failed, or as it is when `ms` pass or the caller gives up. */
  async wait(user: string, id: string, ms: number, signal: AbortSignal): Promise<Replay | undefined> {
    const until = Date.now() + ms;
    for (;;) {
      const r = this.store.getReplay(user, id);
      if (!r || r.state === 'done' || r.state === 'failed' || Date.now() >= until || signal.aborted) return r;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, until - Date.now());
        this.waiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  private async save(r: Replay) {
    await this.store.putReplay(r);
    for (const w of [...this.waiters]) w();
  }

  private async run(user: UserRecord, rec: Recording, replay: Replay): Promise<void> {
    if (this.closing) return;
    const env = this.deps.env;
    replay.state = 'running';
    await this.save(replay);
    let detach: (() => Promise<void>) | undefined;
    const call = (tool: string, args: Record<string, unknown>) => this.deps.callTool(user, tool, args, { via: 'internal' });
    try {
      const opened = await call('browser_open', { mode: rec.mode, ...(rec.profile ? { profile: rec.profile } : {}), ...(rec.context ? { context: rec.context } : {}) });
      if (!opened.ok) throw opened.error;
      const tabId = opened.out.data.tab as string;
      replay.tab = tabId;
      await this.save(replay);
      if (replay.cache !== 'off' && replay.cacheName) {
        const tab = await (await env.pool.get(user.id, rec.profile)).getTab(tabId);
        detach = await attachTabCache(env, user.id, replay.cache, replay.cacheName, tab);
      }
      if (/^https?:/.test(rec.startUrl)) {
        const nav = await call('browser_navigate', { tab: tabId, url: rec.startUrl });
        if (!nav.ok) throw new BrowserdError(nav.error.code, `the start page did not open: ${errorLine(nav.error).message}`);
      }
      for (const step of this.store.steps(user.id, rec.id)) {
        if (this.closing) return; // left `running`: the next start fails it, as for a crash
        const result = await this.step(call, tabId, step);
        replay.steps.push(result);
        await this.save(replay);
        // The step's message can quote the page (a locator made of its class names, a thrown text): it stays in
        // the step's report, which is page text; the replay's error is our words.
        if (!result.skipped && result.outcome !== 'ok') throw new BrowserdError('action_failed', `step ${step.seq} (${step.tool}) failed: ${result.outcome} (its message is in the step's report)`);
      }
      replay.state = 'done';
      // A failed replay leaves its tab open, so a person can see where it stopped.
      await call('browser_close_tab', { tab: tabId });
    } catch (e) {
      if (this.closing) return;
      replay.state = 'failed';
      replay.error = errorLine(e).message.slice(0, 500);
    } finally {
      await detach?.().catch(() => undefined);
    }
    replay.finishedAt = new Date().toISOString();
    await this.save(replay);
    await env.webhooks.emit(user.id, 'replay.finished', replayEvent(replay)).catch((e) => env.log.error({ err: String(e) }, 'replay.finished event failed'));
  }

  /** One recorded step again on the replay's tab; a step that failed while recording is skipped. */
  private async step(call: (tool: string, args: Record<string, unknown>) => Promise<CallOutcome>, tabId: string, step: Step): Promise<ReplayStepResult> {
    const started = Date.now();
    const result = (outcome: string, message?: string, skipped?: boolean): ReplayStepResult => ({ seq: step.seq, tool: step.tool, outcome, ...(message ? { message } : {}), ms: Date.now() - started, ...(skipped ? { skipped } : {}) });
    if (step.outcome !== 'ok') return result(step.outcome, 'failed while recording: not repeated', true);
    if (step.args.omitted === ARGS_OMITTED) return result('validation_error', 'its arguments were too large to keep');
    if (hasSecretPlaceholder(step.args)) return result('validation_error', 'it typed a vault value, which recordings never keep: fill it with browser_vault_fill in your own calls');
    const args: Record<string, unknown> = { ...step.args };
    if (takesTab(this.deps.tool, step.tool)) args.tab = tabId;
    const fresh = new Map<string, string>();
    for (const { key, ref } of refArgs(step.args)) {
      const loc = step.locators[key];
      if (!loc) return result('stale_ref', `no locator was recorded for ${key} (${ref}): the element was in a frame or shadow root, or already gone`);
      const found = await this.find(call, tabId, loc.css);
      if (!found.ok) return result(found.code, found.message);
      fresh.set(key, found.ref);
    }
    for (const k of ['ref', 'fromRef', 'toRef']) if (fresh.has(k)) args[k] = fresh.get(k);
    if (args.fields && typeof args.fields === 'object') {
      args.fields = Object.fromEntries(Object.entries(args.fields as Record<string, unknown>).map(([ref, v]) => [fresh.get(`fields.${ref}`) ?? ref, v]));
    }
    const out = await call(step.tool, args);
    if (!out.ok) return result(out.error.code, messageWithPageText(out.error).slice(0, 500));
    // Nobody is there to approve a background step: one the policy holds for approval is not done.
    if (out.out.approval) return result('refused', 'the policy asks for approval of this step, and a replay has no one to ask');
    return result('ok');
  }

  /** The one element the locator matches now, waiting briefly for the page to show it. */
  private async find(call: (tool: string, args: Record<string, unknown>) => Promise<CallOutcome>, tab: string, css: string): Promise<{ ok: true; ref: string } | { ok: false; code: string; message: string }> {
    const until = Date.now() + FIND_TIMEOUT_MS;
    let total = 0;
    for (;;) {
      const q = await call('browser_query', { tab, css, limit: 2, includeHidden: true });
      if (!q.ok && q.error.code !== 'stale_ref' && q.error.code !== 'action_failed') return { ok: false, code: q.error.code, message: messageWithPageText(q.error) };
      const matches = q.ok ? (q.out.data.matches as { ref: string }[]) : [];
      total = q.ok ? (q.out.data.total as number) : 0;
      if (total === 1) return { ok: true, ref: matches[0]!.ref };
      if (Date.now() >= until || this.closing) break;
      await new Promise((r) => setTimeout(r, FIND_POLL_MS));
    }
    return { ok: false, code: 'stale_ref', message: total ? `the locator ${css} matches ${total} elements now, not one` : `no element matches the locator ${css}` };
  }

  /** At start: replays a crash or restart interrupted end failed (and their receivers hear so). */
  async failUnfinished(): Promise<void> {
    for (const r of [...this.store.unfinishedReplays()]) {
      const failed: Replay = { ...r, state: 'failed', error: 'the daemon restarted while the replay ran', finishedAt: new Date().toISOString() };
      await this.store.putReplay(failed);
      await this.deps.env.webhooks.emit(r.user, 'replay.finished', replayEvent(failed)).catch(() => undefined);
    }
  }

  /** At shutdown: no new step starts; what runs now is failed by the next start. */
  close() {
    this.closing = true;
    for (const w of [...this.waiters]) w();
  }
}
