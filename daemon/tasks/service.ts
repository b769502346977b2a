/**
 * Server-run tasks for every user: start, queue (at most two running per user, the rest wait in order),
 * pause on a hand-off and go on when it is resolved, cancel, and go on after a restart with what was running
 * or paused. The loop itself is runner.ts; this keeps states, slots and the caller's model key, which lives
 * in memory only: after a restart a task uses the host's key, or fails with not_configured.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { BrowserdError } from '../../protocol/errors.js';
import { errorLine } from '../call/error-line.js';
import { DEFAULT_MAX_STEPS, FINAL_TASK_STATES, MAX_RUNNING_TASKS_PER_USER as MAX_RUNNING_PER_USER, type TaskState, type TaskView } from '../../protocol/tasks.js';
import { TaskStore, type TaskRecord } from '../../storage/tasks.js';
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import type { ToolDef } from '../call/define.js';
import type { ToolSpec } from '../models/types.js';
import { fenceText } from '../models/chunks.js';
import { openModelSession } from '../models/session.js';
import { runTask } from './runner.js';
import { taskToolSpecs } from './tool-specs.js';
import { secretScrubber } from '../secrets/user-secrets.js';
import { PendingCount, quotaError } from '../quotas/limits.js';
import { ServiceKey } from '../call/services.js';
import type { HandoffService } from '../handoff/service.js';

/** How long one wait on a hand-off lasts before it is asked again (its own expiry ends it sooner). */
const HANDOFF_WAIT_MS = 10 * 60_000;
/** How long a stopping daemon lets running steps wind down. */
const STOP_GRACE_MS = 5000;

export interface TaskSpec {
  goal: string;
  model?: string;
  startUrl?: string;
  maxSteps?: number;
  maxTokensTotal?: number;
}

const view = (r: TaskRecord): TaskView => ({
  id: r.id,
  state: r.state,
  goal: r.goal,
  model: r.model,
  ...(r.startUrl ? { startUrl: r.startUrl } : {}),
  maxSteps: r.maxSteps,
  maxTokensTotal: r.maxTokensTotal,
  step: r.step,
  usage: { ...r.usage },
  calls: r.calls,
  ...(r.handoff ? { handoff: r.handoff } : {}),
  ...(r.result !== undefined ? { result: r.result } : {}),
  ...(r.error ? { error: r.error } : {}),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
});

const notFound = (id: string) => new BrowserdError('not_found', `no task ${id}`, { next: 'List your tasks with GET /v1/tasks, or start one with POST /v1/tasks.' });

/** What tasks need, handed in by main.ts: the platform, the pipeline the model's calls run through, the tools. */
export interface TaskDeps {
  env: Platform;
  callTool: CallTool;
  tools: readonly ToolDef<any>[];
  /** A paused task waits on its hand-off here. */
  handoffs: HandoffService;
}

/** Server-run tasks: tools reach the service through this key (call/services.ts). */
export const TASKS = new ServiceKey<TaskService>('tasks');

export class TaskService {
  private store?: TaskStore;
  /** Tasks whose loop runs in this process, by `<user>\0<id>`. */
  private running = new Map<string, { user: string; ac: AbortController; done: Promise<void> }>();
  /** Paused tasks waiting on their hand-off. */
  private watches = new Map<string, AbortController>();
  /** The starting request's X-Model-Key per task: memory only, gone at a restart or when the task ends. */
  private keys = new Map<string, string>();
  private events = new EventEmitter();
  private closing = false;
  /** Starts between the quota check and the stored record (quotas/limits.ts). */
  private starting = new PendingCount();

  private readonly env: Platform;
  /** What a task's model may call: the daemon's tools less the few for people, plus task_done. */
  private readonly tools: ToolSpec[];

  constructor(private readonly deps: TaskDeps) {
    this.env = deps.env;
    this.tools = taskToolSpecs(deps.tools);
    this.events.setMaxListeners(0);
  }

  private get db(): TaskStore {
    // Every record is scrubbed of its user's vault values on the way in, and its conversation sealed (storage/tasks.ts).
    this.store ??= new TaskStore(this.env.db, { scrub: (user) => secretScrubber(this.env, user), sealer: () => this.env.vault.keySealer() });
    return this.store;
  }

  private k = (user: string, id: string) => `${user}\0${id}`;

  /** task.finished to the user's webhook receivers, durable before the task's end is reported anywhere else. */
  private async announce(rec: TaskRecord) {
    const data = { id: rec.id, state: rec.state, goal: rec.goal, model: rec.model, steps: rec.step, usage: rec.usage, finishedAt: rec.finishedAt, ...(rec.result !== undefined ? { result: rec.result } : {}), ...(rec.error ? { error: rec.error } : {}) };
    await this.env.webhooks.emit(rec.user, 'task.finished', data).catch((e) => this.env.log.error({ task: rec.id, err: e instanceof Error ? e.message : String(e) }, 'task.finished event failed'));
  }

  private changed(rec: TaskRecord) {
    this.events.emit(this.k(rec.user, rec.id), rec);
  }

  /** Checks the spec, resolves model and key now (a bad model id or no key fails before anything is stored), queues the task. */
  async start(user: string, spec: TaskSpec, key?: string): Promise<TaskView> {
    if (this.closing) throw new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Start the task again in a few seconds.' });
    const env = this.env;
    // Every task not yet ended counts, queued ones too: the queue is what one user could otherwise fill.
    const limit = env.cfg.quotas.tasks;
    const open = this.db.list(user).filter((r) => !FINAL_TASK_STATES.includes(r.state)).length + this.starting.of(user);
    if (open >= limit) throw quotaError('tasks', open, limit, 'Wait for one of your tasks to end, or cancel one you no longer need (POST /v1/tasks/{id}/cancel), then start again.');
    const release = this.starting.hold(user);
    try {
      return await this.create(user, spec, key);
    } finally {
      release();
    }
  }

  private async create(user: string, spec: TaskSpec, key?: string): Promise<TaskView> {
    const env = this.env;
    const session = openModelSession({ env, user, model: spec.model, key, maxTokensTotal: spec.maxTokensTotal, signal: new AbortController().signal });
    const now = new Date().toISOString();
    const rec: TaskRecord = {
      id: `task_${randomBytes(8).toString('hex')}`,
      user,
      goal: spec.goal,
      model: session.model.id,
      ...(spec.startUrl ? { startUrl: spec.startUrl } : {}),
      maxSteps: spec.maxSteps ?? DEFAULT_MAX_STEPS,
      maxTokensTotal: session.usage().budget,
      state: 'queued',
      step: 0,
      messages: [],
      usage: { turns: 0, inputTokens: 0, outputTokens: 0 },
      calls: [],
      createdAt: now,
      updatedAt: now,
    };
    await this.db.create(rec);
    if (key) this.keys.set(this.k(user, rec.id), key);
    this.schedule(user);
    return view(this.db.get(user, rec.id) ?? rec);
  }

  get(user: string, id: string): TaskView | undefined {
    const rec = this.db.get(user, id);
    return rec && view(rec);
  }

  list(user: string, state?: TaskState): TaskView[] {
    return this.db.list(user).filter((r) => !state || r.state === state).map(view);
  }

  async cancel(user: string, id: string): Promise<TaskView> {
    const res = await this.db.update(user, id, (cur) => (FINAL_TASK_STATES.includes(cur.state) ? undefined : { state: 'cancelled', finishedAt: new Date().toISOString(), handoff: undefined }), 'count');
    if (!res) throw notFound(id);
    if (!res.changed) {
      throw new BrowserdError('validation_error', `task ${id} is already ${res.rec.state}, so it cannot be cancelled`, { next: 'Nothing to do; start a new task with POST /v1/tasks if the goal still stands.' });
    }
    await this.announce(res.rec);
    const key = this.k(user, id);
    this.keys.delete(key);
    this.watches.get(key)?.abort();
    this.watches.delete(key);
    this.changed(res.rec);
    const run = this.running.get(key);
    if (run) {
      run.ac.abort();
      await run.done;
    }
    return view(this.db.get(user, id)!);
  }

  /**
   * Deletes a task for good, giving its bytes back to the user's storage quota. One still queued, running or
   * paused is cancelled first (as DELETE of a crawl or a recording under way stops it), so one call frees the
   * bytes; the delete itself only takes a task that has ended (checked in its transaction).
   */
  async delete(user: string, id: string): Promise<void> {
    const cur = this.db.get(user, id);
    if (!cur) throw notFound(id);
    if (!FINAL_TASK_STATES.includes(cur.state)) {
      try {
        await this.cancel(user, id);
      } catch (e) {
        // It ended on its own meanwhile (cancel refuses a finished task): deleting it is what was asked.
        if (!(e instanceof BrowserdError && e.code === 'validation_error')) throw e;
      }
    }
    const res = await this.db.delete(user, id, (r) => FINAL_TASK_STATES.includes(r.state));
    if (res === 'missing') throw notFound(id);
    if (res === 'refused') throw new BrowserdError('validation_error', `task ${id} is still under way, so it was not deleted`, { next: `Cancel it with POST /v1/tasks/${id}/cancel, then delete it again.` });
    const key = this.k(user, id);
    this.keys.delete(key);
    this.watches.get(key)?.abort();
    this.watches.delete(key);
  }

  /** Resolves with the task once `pred` holds (checked now and at every change), after timeoutMs, or when signal aborts. */
  async waitFor(user: string, id: string, pred: (t: TaskView) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<TaskView> {
    const first = this.get(user, id);
    if (!first) throw notFound(id);
    if (pred(first) || timeoutMs <= 0 || signal?.aborted) return first;
    const key = this.k(user, id);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(key, onChange);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const onChange = (r: TaskRecord) => {
        if (pred(view(r))) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on(key, onChange);
      signal?.addEventListener('abort', done, { once: true });
    });
    return this.get(user, id)!;
  }

  /** At daemon start: running and queued tasks go back in their users' queues (oldest first); paused ones wait on their hand-offs again. */
  /** A user moved in from another host of a fleet: their queued, running and paused tasks go on here. */
  resumeUser(user: string): void {
    this.resume(user);
  }

  resumeAll(): void {
    this.resume();
  }

  /** Takes up the stored running, queued and paused tasks (of `only`, when given). */
  private resume(only?: string): void {
    const mine = (rec: TaskRecord) => only === undefined || rec.user === only;
    const users = new Set<string>();
    for (const rec of this.db.inStates(['running', 'queued'])) if (mine(rec)) users.add(rec.user);
    for (const rec of this.db.inStates(['paused'])) if (mine(rec)) this.watch(rec);
    for (const u of users) this.schedule(u);
  }

  /**
   * At daemon stop. Synchronously first (call it before the hand-off service closes): no task starts and no
   * hand-off is waited on any more; then running steps are stopped and waited for. Their tasks stay `running`
   * in the store, so the next start goes on from their last stored step.
   */
  close(): Promise<void> {
    this.closing = true;
    for (const ac of this.watches.values()) ac.abort();
    this.watches.clear();
    const runs = [...this.running.values()];
    for (const r of runs) r.ac.abort();
    const bound = new Promise<void>((r) => setTimeout(r, STOP_GRACE_MS).unref());
    return Promise.race([Promise.all(runs.map((r) => r.done)).then(() => undefined), bound]);
  }

  private runningCount(user: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.user === user) n++;
    return n;
  }

  /**
   * A disabled account's tasks stop where they are (accounts/disabled.ts): the loops end as at shutdown, the
   * records stay running or queued, and nothing starts until `release`.
   */
  async hold(user: string): Promise<void> {
    const runs = [...this.running.values()].filter((r) => r.user === user);
    for (const r of runs) r.ac.abort();
    await Promise.all(runs.map((r) => r.done));
  }

  /** The account is enabled again: its tasks go on from their last stored step. */
  release(user: string): void {
    this.schedule(user);
  }

  /** Users with a task loop running in this process (the disabled-account sweep looks at these). */
  runningUsers(): string[] {
    return [...new Set([...this.running.values()].map((r) => r.user))];
  }

  /** Starts the user's oldest queued tasks while fewer than MAX_RUNNING_PER_USER run. */
  private schedule(user: string) {
    if (this.closing || !this.env.users.isActive(user)) return;
    const queued = this.db
      .list(user)
      .filter((r) => r.state === 'queued' || (r.state === 'running' && !this.running.has(this.k(user, r.id))))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    for (const rec of queued) {
      if (this.runningCount(user) >= MAX_RUNNING_PER_USER) break;
      this.launch(rec);
    }
  }

  private launch(rec: TaskRecord) {
    const key = this.k(rec.user, rec.id);
    if (this.running.has(key)) return;
    const ac = new AbortController();
    const entry = { user: rec.user, ac, done: Promise.resolve() };
    this.running.set(key, entry);
    entry.done = this.drive(rec, ac)
      .catch((e) => this.env.log.error({ task: rec.id, err: e instanceof Error ? e.message : String(e) }, 'task loop failed'))
      .finally(() => {
        if (this.running.get(key) === entry) this.running.delete(key);
        this.schedule(rec.user);
      });
  }

  /** Marks the task running, runs its loop, and stores where it ended. */
  private async drive(queued: TaskRecord, ac: AbortController) {
    const env = this.env;
    const { user: userId, id } = queued;
    const key = this.k(userId, id);
    const started = await this.db.update(userId, id, (cur) => (cur.state === 'queued' || cur.state === 'running' ? { state: 'running' } : undefined), 'count');
    if (!started?.changed) return;
    this.changed(started.rec);
    const user = env.users.get(userId);
    const outcome = user
      ? await runTask({
          env,
          callTool: this.deps.callTool,
          handoffs: this.deps.handoffs,
          tools: this.tools,
          user,
          rec: started.rec,
          key: this.keys.get(key),
          signal: ac.signal,
          // A step that would pass the user's storage quota is refused: the loop ends failed with that error.
          save: async (p) => {
            const res = await this.db.update(userId, id, (cur) => (cur.state === 'running' ? p : undefined), 'refuse');
            if (res?.changed) this.changed(res.rec);
            return !!res?.changed;
          },
        }).catch((e) => ({ kind: 'failed' as const, error: errorLine(e) }))
      : { kind: 'failed' as const, error: { code: 'not_found', message: `the user ${userId} no longer exists` } };
    if (outcome.kind === 'stopped') return;
    const now = new Date().toISOString();
    const patch: Partial<TaskRecord> =
      outcome.kind === 'succeeded'
        ? { state: 'succeeded', result: outcome.result, finishedAt: now }
        : outcome.kind === 'failed'
          ? { state: 'failed', error: outcome.error, finishedAt: now }
          : { state: 'paused', handoff: outcome.handoff };
    // Where the task ended is recorded whatever the quota says (a task failed by it must say so).
    const res = await this.db.update(userId, id, (cur) => (cur.state === 'running' ? patch : undefined), 'count');
    if (!res?.changed) return;
    if (outcome.kind !== 'paused') {
      this.keys.delete(key);
      await this.announce(res.rec);
    }
    this.changed(res.rec);
    if (outcome.kind === 'paused') this.watch(res.rec);
  }

  /** Waits on a paused task's hand-off; when it is resolved or expires, the task is queued to go on. */
  private watch(rec: TaskRecord) {
    if (this.closing || !rec.handoff) return;
    const key = this.k(rec.user, rec.id);
    this.watches.get(key)?.abort();
    const ac = new AbortController();
    this.watches.set(key, ac);
    const handoffId = rec.handoff.id;
    void (async () => {
      const env = this.env;
      let status: string = 'open';
      let note: string | undefined;
      while (status === 'open' && !ac.signal.aborted) {
        try {
          const v = await this.deps.handoffs.wait(rec.user, handoffId, HANDOFF_WAIT_MS, ac.signal);
          status = v.status;
          note = v.note;
        } catch {
          status = 'gone';
        }
      }
      if (ac.signal.aborted) return;
      if (this.watches.get(key) === ac) this.watches.delete(key);
      const told =
        status === 'resolved'
          ? `The person finished hand-off ${handoffId} and pressed Done.${note ? ` Their note:\n${fenceText('hand-off note', note, 2000)}` : ''} Look at the page again and go on with the goal.`
          : `Hand-off ${handoffId} ${status === 'expired' ? 'expired without the person pressing Done' : 'is gone'}. Try another way, ask again with browser_handoff, or call task_done saying what is missing.`;
      const res = await this.db.update(rec.user, rec.id, (cur) => (cur.state === 'paused' ? { state: 'queued', handoff: undefined, messages: [...cur.messages, { role: 'user', content: told }] } : undefined), 'count');
      if (!res?.changed) return;
      this.changed(res.rec);
      this.schedule(rec.user);
    })().catch((e) => this.env.log.error({ task: rec.id, err: e instanceof Error ? e.message : String(e) }, 'task hand-off watch failed'));
  }
}
