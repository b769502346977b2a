/**
 * Research and server-run tasks, as REST-only operations: POST /v1/research and
 * GET /v1/research/{id}; POST /v1/tasks, GET /v1/tasks[/{id}], POST /v1/tasks/{id}/cancel, DELETE /v1/tasks/{id}.
 * They run through the one dispatch, so their validation, audit and scrubbing are a tool's.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { DEFAULT_MAX_STEPS, GOAL_MAX, MAX_STEPS_LIMIT, RESEARCH_ID, TASK_ID, TASK_STATES, type ResearchRecord, type TaskView } from '../../protocol/tasks.js';
import { checkUrl } from '../net/url-check.js';
import { DEFAULT_SOURCES, MAX_SOURCES, QUESTION_MAX, runResearch } from '../model-features/research.js';
import { inline, inlineCut, type ResponseBuilder } from '../call/response.js';
import { PageText, PageValue } from '../call/output.js';
import { TASKS } from './service.js';

const WAIT_MAX_S = 60;
const ResearchIdParam = Type.String({ pattern: RESEARCH_ID.source, description: 'The research id POST /v1/research answered: res_ and 16 hex digits.' });
const TaskIdParam = Type.String({ pattern: TASK_ID.source, description: 'The task id POST /v1/tasks answered: task_ and 16 hex digits.' });

function showResearch(out: ResponseBuilder, r: ResearchRecord) {
  out.set('id', r.id).set('research', r);
  out.text(`Research ${r.id}: ${r.citations.length} checked citation(s) from ${r.sources.filter((s) => s.ok).length} of ${r.sources.length} page(s); model ${r.model}, ${r.usage.inputTokens} input and ${r.usage.outputTokens} output tokens.`);
  // The answer is the model's, written from page text: shown fenced like the pages it rests on.
  out.page('research answer', r.answer);
  for (const c of r.citations) out.page(`quote from ${c.url}`, c.quote);
  // Warnings quote pages (a page that failed to read, a quote not found): fenced like the answer.
  if (r.warnings.length) out.text(`${r.warnings.length} warning(s), fenced below.`).page('warnings', r.warnings.join('\n'));
}

function showTask(out: ResponseBuilder, t: TaskView) {
  out.set('id', t.id).set('task', t);
  const tail =
    t.state === 'paused' && t.handoff
      ? ` Waiting for a person: hand-off ${t.handoff.id}, link ${inline(t.handoff.url)}. It goes on when they press Done.`
      : t.state === 'failed' && t.error
        ? ` ${t.error.code}: ${inlineCut(t.error.message)}${t.error.pageText !== undefined ? ' (its page text is fenced below)' : ''}`
        : '';
  out.text(`Task ${t.id} is ${t.state} after ${t.step} of ${t.maxSteps} step(s), ${t.usage.inputTokens + t.usage.outputTokens} of ${t.maxTokensTotal} tokens.${tail}`);
  if (t.state === 'failed' && t.error?.pageText !== undefined) out.page('page text of the error', t.error.pageText);
  if (t.state === 'succeeded' && t.result !== undefined) out.page('task result', typeof t.result === 'string' ? t.result : JSON.stringify(t.result));
}

const Usage = Type.Object({ turns: Type.Integer(), inputTokens: Type.Integer(), outputTokens: Type.Integer() }, { description: 'Model turns and tokens used.' });

/** A stored research answer (protocol/tasks.ts ResearchRecord). The answer and quotes rest on page text. */
const ResearchSchema = Type.Object({
  id: Type.String(),
  question: Type.String(),
  answer: PageText({ description: "The model's answer, written from the pages read." }),
  citations: Type.Array(
    Type.Object({
      url: Type.String(),
      quote: PageText({ description: 'Found on the page, as the model quoted it.' }),
      chunk: PageText({ description: 'The passage of the page the quote is in.' }),
      headingPath: Type.Array(Type.String()),
      start: Type.Integer(),
      end: Type.Integer(),
    }),
    { description: 'Every quote here was found on its page.' },
  ),
  sources: Type.Array(
    Type.Object({
      url: Type.String(),
      title: Type.Optional(Type.String()),
      snippet: Type.Optional(PageText({ description: "The search backend's snippet." })),
      ok: Type.Boolean({ description: 'False when the page could not be read (it gave nothing to the answer).' }),
      error: Type.Optional(Type.String()),
    }),
  ),
  warnings: Type.Array(PageText({ description: 'A page that could not be read, or a quote dropped because its page does not hold it (it may repeat the quote).' })),
  model: Type.String(),
  usage: Usage,
  createdAt: Type.String(),
});
const ResearchResult = Type.Object({ id: Type.String({ description: 'res_ and 16 hex digits.' }), research: ResearchSchema });

/** A server-run task as callers see it (protocol/tasks.ts TaskView). */
const TaskSchema = Type.Object({
  id: Type.String(),
  state: Type.Union(TASK_STATES.map((s) => Type.Literal(s))),
  goal: Type.String(),
  model: Type.String(),
  startUrl: Type.Optional(Type.String()),
  maxSteps: Type.Integer(),
  maxTokensTotal: Type.Integer(),
  step: Type.Integer({ description: 'Model turns taken so far.' }),
  usage: Usage,
  calls: Type.Array(Type.Object({ step: Type.Integer(), tool: Type.String(), outcome: Type.String({ description: 'ok, needs_approval, or the error code.' }) }), { description: 'The tool calls the task made.' }),
  handoff: Type.Optional(Type.Object({ id: Type.String(), url: Type.String() }, { description: 'While paused: the hand-off a person must finish.' })),
  result: Type.Optional(PageValue({ description: 'What task_done answered (succeeded): any JSON value the model gave, written from the pages it read.' })),
  error: Type.Optional(
    Type.Object(
      { code: Type.String(), message: Type.String({ description: 'Our words.' }), pageText: Type.Optional(PageText({ description: 'The words of a page, model or provider the error is about.' })) },
      { description: 'Why it failed.' },
    ),
  ),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
});
const TaskResult = Type.Object({ id: Type.String({ description: 'task_ and 16 hex digits.' }), task: TaskSchema });

const notFound = (kind: string, id: string, next: string) => new BrowserdError('not_found', `no ${kind} ${id}`, { next });

export const taskTools = [
  defineTool({
    name: 'research',
    title: 'Research a question',
    description:
      'Answers a question from the web: searches with the configured backend, reads the best results (read-only, hidden text left out), and asks the model for an answer with citations (URL and quote). Each quote is checked against its page; one that is not there is dropped and named in warnings. The answer is stored: GET /v1/research/{id}.',
    input: params({
      question: Type.String({ minLength: 1, maxLength: QUESTION_MAX, description: `The question, 1-${QUESTION_MAX} characters.` }),
      maxSources: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SOURCES, description: `Result pages to read, 1-${MAX_SOURCES}. Default ${DEFAULT_SOURCES}.` })),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
    }),
    output: ResearchResult,
    effect: 'read',
    async handle(ctx, args, out) {
      const rec = await runResearch(ctx, args);
      await ctx.env.research.put(ctx.user.id, rec);
      showResearch(out, rec);
    },
  }),
  defineTool({
    name: 'research_get',
    title: 'A research answer',
    description: 'A stored research answer by id, as POST /v1/research answered it.',
    input: params({ id: ResearchIdParam }),
    output: ResearchResult,
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const rec = ctx.env.research.get(ctx.user.id, args.id);
      if (!rec) throw notFound('research', args.id, 'Use the id POST /v1/research answered; each user sees only their own.');
      showResearch(out, rec);
    },
  }),
  defineTool({
    name: 'task_start',
    title: 'Start a task',
    description:
      "Starts a server-run task: a model works toward the goal with the browser tools (the user's host policy, read tabs, vault rules and approvals hold; every call is audited with via task) until it calls task_done. At most two run per user; others wait queued. A hand-off pauses it until the person presses Done. Answers at once with its id; follow it with GET /v1/tasks/{id}.",
    input: params({
      goal: Type.String({ minLength: 1, maxLength: GOAL_MAX, description: `What the task should achieve, in plain words, 1-${GOAL_MAX} characters.` }),
      model: ModelIdParam,
      startUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 8000, description: 'A page the task opens first (http or https).' })),
      maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STEPS_LIMIT, description: `Model turns at most, 1-${MAX_STEPS_LIMIT}. Default ${DEFAULT_MAX_STEPS}.` })),
      maxTokensTotal: MaxTokensTotalParam,
    }),
    output: TaskResult,
    effect: 'write',
    needsBrowser: false,
    async handle(ctx, args, out) {
      const startUrl = args.startUrl === undefined ? undefined : checkUrl(args.startUrl, ctx.env.cfg);
      const t = await ctx.service(TASKS).start(ctx.user.id, { ...args, ...(startUrl ? { startUrl } : {}) }, ctx.modelKey);
      showTask(out, t);
    },
  }),
  defineTool({
    name: 'task_list',
    title: 'Tasks',
    description: "The caller's tasks, newest first, optionally only those in one state.",
    input: params({ state: Type.Optional(StringEnum(TASK_STATES, { description: 'Only tasks in this state.' })) }),
    output: Type.Object({ tasks: Type.Array(TaskSchema, { description: 'Newest first.' }) }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const tasks = ctx.service(TASKS).list(ctx.user.id, args.state);
      out.set('tasks', tasks);
      out.text(tasks.length ? tasks.map((t) => `${t.id} ${t.state}, step ${t.step}/${t.maxSteps}`).join('\n') : args.state ? `No ${args.state} tasks.` : 'No tasks.');
    },
  }),
  defineTool({
    name: 'task_get',
    title: 'A task',
    description: `One task: state, steps, tool calls, usage, and its result, error or hand-off link. waitS waits while it is queued or running (up to ${WAIT_MAX_S} s).`,
    input: params({
      id: TaskIdParam,
      waitS: Type.Optional(Type.Integer({ minimum: 0, maximum: WAIT_MAX_S, description: `Seconds to wait while the task is queued or running, 0-${WAIT_MAX_S}. Default 0.` })),
    }),
    output: TaskResult,
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const t = await ctx.service(TASKS).waitFor(ctx.user.id, args.id, (v) => v.state !== 'queued' && v.state !== 'running', (args.waitS ?? 0) * 1000, ctx.signal);
      showTask(out, t);
    },
  }),
  defineTool({
    name: 'task_cancel',
    title: 'Cancel a task',
    description: 'Cancels a queued, running or paused task: a tool call in flight is stopped, nothing more runs. A finished task cannot be cancelled.',
    input: params({ id: TaskIdParam }),
    output: TaskResult,
    effect: 'write',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      showTask(out, await ctx.service(TASKS).cancel(ctx.user.id, args.id));
    },
  }),
  defineTool({
    name: 'task_delete',
    title: 'Delete a task',
    description:
      "Deletes a task for good: its record, conversation, steps and tool calls, whose bytes go back to the user's storage quota (the audit keeps its calls). A queued, running or paused task is cancelled first.",
    input: params({ id: TaskIdParam }),
    output: Type.Object({ id: Type.String({ description: 'The task deleted.' }), deleted: Type.Literal(true) }),
    effect: 'write',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      await ctx.service(TASKS).delete(ctx.user.id, args.id);
      out.set('id', args.id).set('deleted', true);
      out.text(`Deleted task ${args.id}.`);
    },
  }),
];
