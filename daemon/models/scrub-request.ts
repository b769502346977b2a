/**
 * What is sent to a model never carries one of the user's vault values or filled codes, in any of their
 * forms (call/secret-forms.ts): every model request passes here (session.ts), whoever built it (a task, act,
 * ask, extract, research). Tool results are scrubbed already when they are rendered; this also covers page
 * text a feature puts into a prompt itself, a task's stored conversation read back after a restart, and what
 * a model wrote (its tool arguments are sent back to it in the next turn). Images are sent as they are.
 */
import { scrubDeep, scrubText } from '../call/redact.js';
import type { ChatMessage, TurnRequest } from './types.js';

function scrubMessage(m: ChatMessage, forms: readonly string[]): ChatMessage {
  switch (m.role) {
    case 'user':
      return { ...m, content: scrubText(m.content, forms) };
    case 'assistant':
      return {
        ...m,
        ...(m.content !== undefined ? { content: scrubText(m.content, forms) } : {}),
        ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c) => ({ ...c, args: scrubDeep(c.args, forms) })) } : {}),
      };
    case 'tool':
      return { ...m, content: scrubText(m.content, forms) };
  }
}

/** The request with `forms` (scrubList of the user's secrets) hidden in every text it sends. */
export function scrubTurnRequest<R extends TurnRequest>(req: R, forms: readonly string[]): R {
  if (!forms.length) return req;
  return { ...req, system: scrubText(req.system, forms), messages: req.messages.map((m) => scrubMessage(m, forms)) };
}
