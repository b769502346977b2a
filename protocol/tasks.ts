/** Research records and server-run tasks as callers see them (REST and the operations), with their id formats. */

/** A stored research answer: `res_` and 16 hex digits. */
export const RESEARCH_ID = /^res_[0-9a-f]{16}$/;
/** A server-run task: `task_` and 16 hex digits. */
export const TASK_ID = /^task_[0-9a-f]{16}$/;

/** Limits of a task's parameters (POST /v1/tasks). */
export const MAX_RUNNING_TASKS_PER_USER = 2;
export const DEFAULT_MAX_STEPS = 30;
export const MAX_STEPS_LIMIT = 100;
export const GOAL_MAX = 4000;

export const TASK_STATES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
/** States a task never leaves. */
export const FINAL_TASK_STATES: readonly TaskState[] = ['succeeded', 'failed', 'cancelled'];

export interface ResearchCitation {
  url: string;
  quote: string;
  chunk: string;
  headingPath: string[];
  start: number;
  end: number;
}

export interface ResearchSource {
  url: string;
  title?: string;
  /** From the search backend; the page itself is what the answer rests on. */
  snippet?: string;
  /** False when the page could not be read (then it gave no text to the answer). */
  ok: boolean;
  error?: string;
}

export interface ResearchRecord {
  id: string;
  question: string;
  answer: string;
  /** Every quote here was found on its page; quotes the model made up were dropped (see warnings). */
  citations: ResearchCitation[];
  sources: ResearchSource[];
  warnings: string[];
  model: string;
  usage: { turns: number; inputTokens: number; outputTokens: number };
  createdAt: string;
}

/**
 * One message of a task's conversation as stored (the shape of daemon/models ChatMessage, declared here so the
 * store needs nothing from the daemon). Tool results in it are already fenced and scrubbed.
 */
export type TaskMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content?: string; toolCalls?: { id: string; name: string; args: Record<string, unknown> }[] }
  | { role: 'tool'; callId: string; name: string; content: string };

/** One tool call a task made, as its log shows it. */
export interface TaskCall {
  step: number;
  tool: string;
  /** 'ok', 'needs_approval', or the error code. */
  outcome: string;
}

export interface TaskView {
  id: string;
  state: TaskState;
  goal: string;
  /** The resolved model id (a later change of the host's default does not move a running task). */
  model: string;
  startUrl?: string;
  maxSteps: number;
  maxTokensTotal: number;
  /** Model turns taken so far. */
  step: number;
  usage: { turns: number; inputTokens: number; outputTokens: number };
  calls: TaskCall[];
  /** While paused: the hand-off a person must finish for the task to go on. */
  handoff?: { id: string; url: string };
  /** What task_done answered (succeeded). */
  result?: unknown;
  /**
   * Why it failed: `message` in our words; `pageText` the words of a page, a model or a provider the error is
   * about (a provider's error can echo what it was sent, which is page text in a task).
   */
  error?: { code: string; message: string; pageText?: string };
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
}
